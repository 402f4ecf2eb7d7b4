import PostgresNIO

/// The tables the journal keeps in PostgreSQL (docs/deploy.md, "The tables"), made on
/// first use. `fusion_schema` records their version: a bridge refuses a database whose
/// version is newer than the one it knows, rather than write rows a newer bridge would
/// misread.
enum JournalSchema {
    /// The version these statements make. 2 added `fusion_sessions.owner` (the signed-in
    /// user a session belongs to); a version-1 database is brought up to it in place.
    static let version = 2

    /// Made in one transaction, under a transaction-scoped advisory lock, so that bridges
    /// starting together make them once.
    static let statements: [String] = [
        "CREATE TABLE IF NOT EXISTS fusion_schema (version integer NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS fusion_sessions (
            id text PRIMARY KEY,
            epoch bigint NOT NULL,
            holder text NOT NULL,
            started timestamptz NOT NULL DEFAULT now(),
            taken timestamptz NOT NULL DEFAULT now(),
            released boolean NOT NULL DEFAULT false,
            owner text
        )
        """,
        "ALTER TABLE fusion_sessions ADD COLUMN IF NOT EXISTS owner text",
        """
        CREATE TABLE IF NOT EXISTS fusion_instances (
            session_id text NOT NULL REFERENCES fusion_sessions (id) ON DELETE CASCADE,
            instance integer NOT NULL,
            header text NOT NULL,
            PRIMARY KEY (session_id, instance)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS fusion_records (
            session_id text NOT NULL,
            instance integer NOT NULL,
            seq bigint NOT NULL,
            record text NOT NULL,
            PRIMARY KEY (session_id, instance, seq),
            FOREIGN KEY (session_id, instance) REFERENCES fusion_instances (session_id, instance) ON DELETE CASCADE
        )
        """,
        "INSERT INTO fusion_schema (version) SELECT \(version) WHERE NOT EXISTS (SELECT 1 FROM fusion_schema)",
        "UPDATE fusion_schema SET version = \(version) WHERE version < \(version)"
    ]

    /// The advisory lock key under which the tables are made (any constant no other
    /// program of the database uses).
    static let creationLock: Int64 = 0x4675_7369_6f6e_4b74  // "FusionKt"

    /// The channel a bridge asks, with a session id, for the session's hand-over.
    static let handOverChannel = "fusion_handover"
}
