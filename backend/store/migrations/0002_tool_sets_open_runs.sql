-- 0002: tool sets stored once per session, and which sessions have a run open.
--
-- A model request names the tool set it offered (model_request.tool_set)
-- instead of carrying every tool's schema: a set is stored the first time a
-- session uses it and found again by the hash of its JSON.

CREATE TABLE tool_sets (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    -- 1, 2, 3… within the session, in the order the sets were first used.
    id         INTEGER NOT NULL CHECK (id > 0),
    -- Hex SHA-256 of tools.
    hash       TEXT    NOT NULL,
    -- The tools' specs as a JSON array.
    tools      TEXT    NOT NULL,
    PRIMARY KEY (session_id, id),
    UNIQUE (session_id, hash)
) STRICT, WITHOUT ROWID;

-- The run a session has open (its user_message came, its run_end not yet),
-- or 0. Append keeps it, so that recovery at start-up finds open runs
-- without reading any log.
ALTER TABLE sessions ADD COLUMN open_run INTEGER NOT NULL DEFAULT 0 CHECK (open_run >= 0);

-- Sessions written before: a run is open when its user_message has no
-- run_end after it.
UPDATE sessions SET open_run = coalesce((
    SELECT u.run FROM events u
    WHERE u.session_id = sessions.id AND u.kind = 'user_message'
      AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.session_id = u.session_id AND e.seq > u.seq AND e.kind = 'run_end')
    ORDER BY u.seq DESC LIMIT 1), 0);

CREATE INDEX sessions_with_open_run ON sessions (open_run) WHERE open_run > 0;
