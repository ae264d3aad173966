/// SQL functions each store's schema holds, for the few rules of docs/values.md that
/// PostgreSQL's own operators break (the SQLite drivers register Swift functions for the same
/// rules; PostgreSQL runs its own languages only, so these are PL/pgSQL):
///
/// - `shark_real(op, a, b)`: IEEE arithmetic on reals. PostgreSQL refuses a result that
///   overflows or underflows (`1e308 * 10`), where IEEE, and every other driver, gives ±∞ or
///   ±0; and a result that is not a number (∞ − ∞) is NULL.
/// - `shark_decimal(x)`: a decimal result rounded once to the nearest `Decimal` (39
///   significant digits when they fit its 128-bit mantissa, else 38; ties to even), and an
///   error beyond `Decimal`'s range. `numeric` is exact to any length, so without it
///   `amount * 1e10` would answer where the other drivers say the result overflows.
/// - `shark_real_text(x)`: a real's text as SQLite writes it (`%!.15g`: `0.0`, `1.5`,
///   `1.0e+20`), which `length`, `LIKE`, `lower` and `upper` of a real read.
///
/// With them, the log through which the stores of the schema hear of each other's commits
/// (``PostgresChangeRecord``) and the table whose lock writers that must take turns hold
/// (``PostgresWriteTurn``).
///
/// They are installed when a writable store opens and finds them missing (or of an older
/// version, named by ``version``), under the lock that serializes migrations.
enum PostgresFunctions {
    /// Bumped whenever a function's text changes: stores install the new ones.
    static let version = 3

    static var marker: String { "shark_functions_v\(version)" }

    static let definitions: [String] = [
        """
        CREATE OR REPLACE FUNCTION shark_real(op text, a double precision, b double precision)
        RETURNS double precision LANGUAGE plpgsql IMMUTABLE AS $$
        DECLARE
            result double precision;
            exact numeric;
        BEGIN
            IF a IS NULL OR b IS NULL THEN RETURN NULL; END IF;
            BEGIN
                result := CASE op WHEN '+' THEN a + b WHEN '-' THEN a - b WHEN '*' THEN a * b
                    WHEN '/' THEN a / b ELSE a - b * trunc(a / b) END;
            EXCEPTION WHEN numeric_value_out_of_range THEN
                -- Finite operands whose result is beyond a double: IEEE's infinity, or for an
                -- underflow (only products and quotients underflow) a zero, with the exact
                -- result's sign.
                exact := CASE op WHEN '+' THEN a::numeric + b::numeric WHEN '-' THEN a::numeric - b::numeric
                    WHEN '*' THEN a::numeric * b::numeric ELSE a::numeric / b::numeric END;
                IF abs(exact) >= 1 THEN
                    result := CASE WHEN exact > 0 THEN 'Infinity'::double precision ELSE '-Infinity' END;
                ELSE
                    result := CASE WHEN (a < 0) <> (b < 0) THEN '-0'::double precision ELSE '0' END;
                END IF;
            END;
            RETURN NULLIF(result, 'NaN'::double precision);
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION shark_decimal(x numeric) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT AS $$
        DECLARE
            magnitude numeric := abs(x);
            top_power integer;
            digits integer;
            quantum integer;
            unit numeric;
            whole numeric;
            rest numeric;
            half numeric;
            text_form text;
        BEGIN
            IF x = 'Infinity'::numeric OR x = '-Infinity'::numeric OR x = 'NaN'::numeric THEN
                RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'not a decimal: ' || x::text;
            END IF;
            IF x = 0 THEN RETURN 0; END IF;
            -- The power of ten of the top_power digit, from the digits themselves (a logarithm
            -- could round across a power of ten).
            IF magnitude >= 1 THEN
                top_power := length(trunc(magnitude)::text) - 1;
            ELSE
                text_form := substr(trim_scale(magnitude)::text, 3);
                top_power := -(length(text_form) - length(ltrim(text_form, '0')) + 1);
            END IF;
            FOREACH digits IN ARRAY ARRAY[39, 38] LOOP
                quantum := greatest(top_power - digits + 1, -128);
                unit := ('1e' || quantum)::numeric;
                whole := div(magnitude, unit);
                rest := magnitude - whole * unit;
                half := unit / 2;
                IF rest > half OR (rest = half AND mod(whole, 2) = 1) THEN whole := whole + 1; END IF;
                IF whole <= 340282366920938463463374607431768211455 THEN
                    IF quantum > 127 THEN
                        RAISE EXCEPTION USING ERRCODE = '22003',
                            MESSAGE = 'decimal overflow: the result is beyond the range of Decimal';
                    END IF;
                    RETURN sign(x) * whole * unit;
                END IF;
            END LOOP;
            RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'decimal overflow: the result is beyond the range of Decimal';
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION shark_real_text(x double precision) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
        DECLARE
            rounded numeric;
            exponent integer;
            mantissa text;
        BEGIN
            IF x = 'Infinity'::double precision THEN RETURN 'Inf'; END IF;
            IF x = '-Infinity'::double precision THEN RETURN '-Inf'; END IF;
            IF x = 'NaN'::double precision THEN RETURN NULL; END IF;
            -- PostgreSQL converts a double to numeric with 15 significant digits: %.15g's.
            rounded := x::numeric;
            IF rounded = 0 THEN RETURN '0.0'; END IF;
            IF abs(rounded) >= 1 THEN
                exponent := length(trunc(abs(rounded))::text) - 1;
            ELSE
                mantissa := substr(trim_scale(abs(rounded))::text, 3);
                exponent := -(length(mantissa) - length(ltrim(mantissa, '0')) + 1);
            END IF;
            IF exponent < -4 OR exponent >= 15 THEN
                mantissa := trim_scale(rounded * ('1e' || -exponent)::numeric)::text;
                IF position('.' IN mantissa) = 0 THEN mantissa := mantissa || '.0'; END IF;
                RETURN mantissa || 'e' || CASE WHEN exponent < 0 THEN '-' ELSE '+' END
                    || lpad(abs(exponent)::text, 2, '0');
            END IF;
            mantissa := trim_scale(rounded)::text;
            IF position('.' IN mantissa) = 0 THEN mantissa := mantissa || '.0'; END IF;
            RETURN mantissa;
        END $$
        """,
    ]

    /// Installed last: present only once every function (and the change log) is.
    static var markerDefinition: String {
        "CREATE OR REPLACE FUNCTION \(marker)() RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT \(version) $$"
    }

    /// Installs the functions in the session's current schema unless they are there.
    static func install(in session: PostgresSession) async throws {
        let present = try await session.rows(
            "SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
                + "WHERE n.nspname = current_schema() AND p.proname = $1",
            [WireValue(payload: .text(marker))])
        guard present.isEmpty else { return }
        try await session.execute("START TRANSACTION")
        do {
            try await session.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.shark_schema'))")
            for definition in definitions + PostgresChangeRecord.definitions + PostgresWriteTurn.definitions + [
                markerDefinition
            ] {
                try await session.execute(definition)
            }
            try await session.execute("COMMIT")
        } catch {
            try? await session.execute("ROLLBACK")
            throw error
        }
    }
}
