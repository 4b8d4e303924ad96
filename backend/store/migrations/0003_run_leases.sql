-- 0003: who owns each live run.
--
-- A run is open from its user_message to its run_end (sessions.open_run).
-- The process working on it holds a lease on its session, so that recovery
-- (in the window, or in `loupe run`, in any process on this file) closes a
-- run only when its owner is gone, never one a live process is working on.
-- At most one lease per session: a session runs one run at a time.
CREATE TABLE run_leases (
    session_id TEXT    NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    -- Random per process: every lease this process holds has the same owner,
    -- and its heartbeat renews them all with one statement.
    owner      TEXT    NOT NULL,
    -- Random per taking: releasing removes only the lease one took.
    token      TEXT    NOT NULL,
    -- The owner's process id, the kernel's boot id
    -- (/proc/sys/kernel/random/boot_id) and pid namespace
    -- (/proc/self/ns/pid) when it has them, '' when not, and when the
    -- process started (field 22 of /proc/PID/stat: clock ticks since boot,
    -- 0 when unknown), which tells the owner from a process that got its pid
    -- after it died.
    pid        INTEGER NOT NULL,
    boot_id    TEXT    NOT NULL,
    pid_ns     TEXT    NOT NULL,
    started    INTEGER NOT NULL,
    taken_at   INTEGER NOT NULL,
    -- Renewed every few seconds while the owner lives (Unix nanoseconds).
    heartbeat  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX run_leases_by_owner ON run_leases (owner);
