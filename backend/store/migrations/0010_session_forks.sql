-- 0010: a session can be a fork of another: its log is the parent's up to
-- one event (fork_seq), copied, and goes on from there on its own.
--
-- forked_from is the parent's id, or ''. No foreign key: the parent may
-- be deleted and the fork stays whole (its log is its own copy). fork_seq
-- is the parent's last event the fork holds (0 when not a fork).
ALTER TABLE sessions ADD COLUMN forked_from TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN fork_seq INTEGER NOT NULL DEFAULT 0 CHECK (fork_seq >= 0);

-- A session's forks are found from the parent (the mark on the card where
-- each was made) without reading every row.
CREATE INDEX sessions_forked_from ON sessions (forked_from) WHERE forked_from <> '';
