-- 0012: a session can be imported from another agent's file (Claude Code,
-- Codex CLI, an ATIF trajectory): source names the program ('' for a
-- session of Loupe's own, or one imported from a Loupe export), source_id
-- its id there. Such a session is read-only; a fork of it is Loupe's own.
ALTER TABLE sessions ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN source_id TEXT NOT NULL DEFAULT '';
