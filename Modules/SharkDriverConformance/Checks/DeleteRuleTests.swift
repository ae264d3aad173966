import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Delete rules, to-many inverses, many-to-many and subqueries, on every driver.
struct DeleteRuleTests {
    /// Knuth (two books, one with chapters), Lamport (one book).
    static func library(in store: Store) throws -> (knuth: Author, lamport: Author, taocp: Book, latex: Book) {
        let knuth = Author("Knuth")
        let lamport = Author("Lamport")
        let taocp = Book("TAOCP", pages: 650, author: knuth)
        let tex = Book("TeXbook", pages: 480, author: knuth)
        let latex = Book("LaTeX", pages: 270, author: lamport)
        try store.commit([taocp, tex, latex])
        try store.commit([Chapter(1, book: taocp), Chapter(2, book: taocp), Chapter(1, book: latex)])
        return (knuth, lamport, taocp, latex)
    }

    func nullify(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let sales = Department("Sales")
        try store.commit([Employee("Ada", department: sales), Employee("Alan", department: sales), Employee("Grace")])
        try store.remove(sales)
        #expect(try Employee.query(in: store).count() == 3)
        #expect(try Employee.query(in: store).where(\.department == nil).count() == 3)
        let ada = try #require(try Employee.query(in: store).where(\.name == "Ada").first())
        #expect(ada.department == nil)
        #expect(try ada.load(\.department) == nil)
    }

    func cascade(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let (knuth, _, _, _) = try Self.library(in: store)
        try store.remove(knuth)
        #expect(try Author.query(in: store).count() == 1)
        #expect(try Book.query(in: store).fetch().map(\.title) == ["LaTeX"])
        #expect(try Chapter.query(in: store).count() == 1)  // LaTeX's
        #expect(!knuth.isPersisted)
    }

    func ruleAddedByAnotherStore(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let first = try driver.openFile(file.path) { $0 }
        defer { first.close() }
        let (_, _, taocp, latex) = try Self.library(in: first)
        // A removal loads the first store's catalog: no entity refers to Book with deny yet.
        let extra = Book("Errata", pages: 1, author: nil)
        try first.commit(extra)
        try first.remove(extra)

        // Another store (another process, as far as the file knows) adds Review, whose
        // relationship to Book denies removals.
        let second = try driver.openFile(file.path) { $0 }
        try second.commit(Review(5, book: try second.find(Book.self, id: taocp.id)))
        second.close()

        #expect(throws: SharkError.deleteDenied(entity: "Book", referencedBy: "Review.book")) {
            try first.remove(taocp)
        }
        try first.remove(latex)
        #expect(try Book.query(in: first).count() == 2)
    }

    func deny(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let (knuth, lamport, taocp, _) = try Self.library(in: store)
        try store.commit(Review(5, book: taocp))
        #expect(throws: SharkError.deleteDenied(entity: "Book", referencedBy: "Review.book")) {
            try store.remove(taocp)
        }
        // Reached through a cascade, the deny stops the whole removal.
        #expect(throws: SharkError.deleteDenied(entity: "Book", referencedBy: "Review.book")) {
            try store.remove(knuth)
        }
        #expect(knuth.isPersisted && taocp.isPersisted)
        #expect(try Author.query(in: store).count() == 2)
        #expect(try Book.query(in: store).count() == 3)
        #expect(try Chapter.query(in: store).count() == 3)
        // Inside a transaction that goes on, the failed removal left nothing behind either.
        try store.transaction {
            #expect(throws: SharkError.self) { try store.remove(knuth) }
            try store.remove(lamport)
        }
        #expect(try Book.query(in: store).count() == 2)
        #expect(try Chapter.query(in: store).count() == 2)
        // Once nothing refers to it, the removal goes through.
        try Review.query(in: store).removeAll()
        try store.remove(knuth)
        #expect(try Book.query(in: store).count() == 0)
    }

    func cascadeHooks(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let knuth = Author("Knuth")
        try store.commit([Book("keep", author: knuth), Book("TAOCP", author: knuth)])
        #expect(throws: SharkError.vetoed(entity: "Book", operation: .delete)) { try store.remove(knuth) }
        #expect(try Book.query(in: store).count() == 2)
        #expect(try Author.query(in: store).count() == 1)
    }

    func longChains(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let book = Book("Long")
        var previous: Chapter?
        var chapters: [Chapter] = []
        for number in 1...1_500 {
            let chapter = Chapter(number, book: nil)
            chapter.previous = previous
            chapters.append(chapter)
            previous = chapter
        }
        chapters[0].book = book
        try store.commit(chapters)
        // Removing the book removes chapter 1, whose removal removes chapter 2, and so on.
        try store.remove(book)
        #expect(try Chapter.query(in: store).count() == 0)
        // A self-reference does not keep an object alive.
        let loop = Chapter(1, book: nil)
        loop.previous = loop
        try store.commit(loop)
        try store.remove(loop)
        #expect(try Chapter.query(in: store).count() == 0)
    }

    func removeAll(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try Self.library(in: store)
        #expect(try Author.query(in: store).removeAll() == 2)
        #expect(try Book.query(in: store).count() == 0)
        #expect(try Chapter.query(in: store).count() == 0)
    }

    func inverses(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let (knuth, lamport, _, _) = try Self.library(in: store)
        #expect(try knuth.books.count() == 2)
        #expect(try knuth.books.orderBy(\.title).fetch().map(\.title) == ["TAOCP", "TeXbook"])
        #expect(try knuth.books.where(\.pages > 500).count() == 1)
        #expect(try knuth.books.sum(\.pages) == 1_130)
        #expect(try lamport.books.fetch().map(\.title) == ["LaTeX"])
        // It reflects what is stored now.
        try store.commit(Book("Concrete Mathematics", pages: 640, author: knuth))
        #expect(try knuth.books.count() == 3)
        let fetched = try #require(try Author.query(in: store).where(\.name == "Lamport").first())
        #expect(try fetched.books.count() == 1)
        // An object that belongs to no store, with no default store, has no inverse to query.
        #expect(throws: SharkError.noStore) { try Author("Nobody").books.count() }
    }

    func manyToMany(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let chess = Club("Chess")
        let go = Club("Go")
        let ada = Employee("Ada")
        let alan = Employee("Alan")
        let grace = Employee("Grace")
        try store.commit([Membership(chess, ada), Membership(chess, alan), Membership(go, alan), Membership(go, grace)])
        #expect(try chess.members.orderBy(\.name).fetch().map(\.name) == ["Ada", "Alan"])
        #expect(try go.members.where(\.name != "Alan").fetch().map(\.name) == ["Grace"])
        #expect(try go.members.count() == 2)
        // Removing a member cascades to the memberships, not to the clubs.
        try store.remove(alan)
        #expect(try chess.members.count() == 1)
        #expect(try Membership.query(in: store).count() == 2)
        #expect(try Club.query(in: store).count() == 2)
    }

    func subqueries(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let (knuth, _, _, _) = try Self.library(in: store)
        let longBooks = try Book.query(in: store).where(\.pages > 400)
        let chapters = try Chapter.query(in: store).where(.isIn(\.book, longBooks))
        #expect(try chapters.count() == 2)
        let prolific = try Author.query(in: store).where(
            .isReferenced(by: Book.query(in: store).where(\.pages > 600), through: \.author))
        #expect(try prolific.fetch().map(\.name) == ["Knuth"])
        let titled = try Book.query(in: store).where(
            .isIn(\.title, Book.query(in: store).where(\.pages < 300), selecting: \.title))
        #expect(try titled.fetch().map(\.title) == ["LaTeX"])
        let authors = try Book.query(in: store).where(.isIn(\.author, Author.query(in: store).where(\.name == "Knuth")))
        #expect(try authors.count() == 2)
        #expect(
            try Book.query(in: store).where(.isIn(\.author, Author.query(in: store).where(\.name == "Nobody")))
                .count() == 0)
        // NOT IN, and a subquery inside a larger predicate.
        let others = try Book.query(in: store).where(!.isIn(\.author, Author.query(in: store).where(\.id == knuth.id)))
        #expect(try others.fetch().map(\.title) == ["LaTeX"])
        let mixed = try Book.query(in: store).where(
            \.pages < 500 && .isIn(\.author, Author.query(in: store).where(.like(\.name, "K%"))))
        #expect(try mixed.fetch().map(\.title) == ["TeXbook"])
        // A subquery's own problem is the query's.
        let broken = try Book.query(in: store).where(.isIn(\.author, Author.query(in: store).where("nope = 1")))
        #expect(throws: SharkError.self) { try broken.count() }
    }
}
