-- 0006: a session's Step mode and breakpoints live in its own row, so that
-- deleting the session deletes them (they were a settings row
-- 'session/<id>/debug' that outlived it).
--
-- '' means none saved: not stepping, no breakpoints.
ALTER TABLE sessions ADD COLUMN stepping TEXT NOT NULL DEFAULT '';

UPDATE sessions SET stepping = (
  SELECT value FROM settings WHERE key = 'session/' || sessions.id || '/debug'
) WHERE EXISTS (SELECT 1 FROM settings WHERE key = 'session/' || sessions.id || '/debug');

DELETE FROM settings WHERE key LIKE 'session/%/debug';
