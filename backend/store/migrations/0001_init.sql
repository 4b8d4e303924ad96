-- 0001: sessions, their append-only event logs, and app settings.
--
-- Times are INTEGER Unix nanoseconds (UTC): exact, sortable, and independent
-- of the driver's time formatting. JSON is stored as TEXT, not BLOB, so that
-- SQLite's json_* functions read it as JSON text (they read a BLOB as JSONB).

CREATE TABLE sessions (
    id          TEXT    NOT NULL PRIMARY KEY,
    title       TEXT    NOT NULL DEFAULT '',
    workspace   TEXT    NOT NULL DEFAULT '',
    model       TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    -- Reason of the last run_end, or '' while a run is open or before any run.
    last_reason TEXT    NOT NULL DEFAULT '',
    -- Seq of the newest event: the next one gets last_seq+1 without scanning
    -- the log, and it is also the session's event count (seqs are dense).
    last_seq    INTEGER NOT NULL DEFAULT 0 CHECK (last_seq >= 0)
) STRICT;

CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id);

CREATE TABLE events (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq > 0),
    kind       TEXT    NOT NULL,
    time       INTEGER NOT NULL,
    run        INTEGER NOT NULL,
    round      INTEGER NOT NULL,
    payload    TEXT    NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE settings (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
