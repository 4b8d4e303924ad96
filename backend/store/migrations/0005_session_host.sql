-- 0005: the Ollama host each session runs on.
--
-- '' is the local host (Settings' Ollama host, --host, OLLAMA_HOST or the
-- default, as the process chooses it); a name is one of Settings' named
-- hosts, read again at each run so an address edited there applies; a
-- value with '://' is an address given as such (loupe run --host URL).
ALTER TABLE sessions ADD COLUMN host TEXT NOT NULL DEFAULT '';
