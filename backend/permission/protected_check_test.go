package permission

import "testing"

// The judgement Loupe's own process is given (hands) is the policy's own
// list: what asks for a tool is refused for undo.
func TestProtectedCheckIsThePolicysList(t *testing.T) {
	ws := t.TempDir()
	p := Policy{Mode: ModeAuto, Workspace: ws, ProtectedFiles: []string{ws + "/data/loupe.db"}}
	check := p.ProtectedCheck()
	for _, rel := range []string{".git/config", ".git/hooks/pre-commit", "sub/.git/config", ".git/modules/m/config", ".git/HEAD", "lib/.git",
		".loupe/settings.json", ".env", ".env.local", "data/loupe.db", "data/loupe.db-wal", "data/loupe.db-shm", "data/loupe.db-journal"} {
		_, ok := check(nil, rel)
		asks := p.Decide(Call{Tool: "write_file", Paths: []string{rel}}).Verdict == Ask
		if !ok || !asks {
			t.Errorf("%s: protected for Loupe's hands %v, asks for a tool %v; want both", rel, ok, asks)
		}
	}
	for _, rel := range []string{"notes.txt", ".git/ORIG_HEAD", "data/other.db", "src/config"} {
		if pat, ok := check(nil, rel); ok {
			t.Errorf("%s protected by %s", rel, pat)
		}
	}
}
