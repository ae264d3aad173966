import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time read from Linux's /proc, for `--hub-load`: how busy the hub, the devices (this
/// process) and the database server were over a run, set against its wall time, tells which
/// of them limits it on a machine they all share.
enum CPUTime {
    /// The user and system time of process `pid` so far, in seconds; with `children`, also
    /// that of its children which have exited (PostgreSQL's backends, reaped by the
    /// postmaster). NaN when the process is gone.
    static func seconds(of pid: Int32, children: Bool = false) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return .nan }
        return seconds(stat: text, children: children) ?? .nan
    }

    /// This process's user and system time so far (every device of the bench runs in it).
    static func ownSeconds() -> Double { seconds(of: getpid()) }

    /// The CPU time of every `postgres` process on the machine, with their exited children:
    /// the database server the hub processes share (the only one running during a bench).
    static func postgresSeconds() -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return .nan }
        var total = 0.0
        for entry in entries {
            guard Int32(entry) != nil,
                let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                text.contains("(postgres)"), let seconds = seconds(stat: text, children: true)
            else { continue }
            total += seconds
        }
        return total
    }

    /// utime and stime (fields 14 and 15 of /proc/<pid>/stat), and cutime and cstime (16 and
    /// 17) with `children`, in seconds.
    private static func seconds(stat text: String, children: Bool) -> Double? {
        // After the command's name (which may hold spaces): state is field 3.
        guard let end = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 14 else { return nil }
        let wanted = children ? 11...14 : 11...12
        var ticks = 0.0
        for index in wanted {
            guard let value = Double(fields[index]) else { return nil }
            ticks += value
        }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
