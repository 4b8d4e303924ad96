package session

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/settings"
	"github.com/loupe-dev/loupe/backend/trace"
)

// host is the Ollama host an imported session keeps: the name of one of
// Settings' Ollama hosts when the file names one, else the local host. An
// address in the file is never kept: no one chose it on this machine, and
// a run would send the workspace's files there. What was dropped is said
// in a notice.
func (p *importer) host(inFile string) (string, error) {
	inFile = strings.TrimSpace(inFile)
	if inFile == "" {
		return "", nil
	}
	set, err := settings.Load(p.ctx, p.st)
	if err != nil {
		return "", err
	}
	if !strings.ContainsAny(inFile, ":/") {
		if prof, ok := set.Profile(inFile); ok {
			return prof.Name, nil
		}
	}
	p.res.Notices = append(p.res.Notices, trace.Notice{Code: "import_host",
		Message: fmt.Sprintf("the file ran this session on the Ollama host %q, which is not one of your Ollama hosts; here it runs on the local host. To run it elsewhere, add that host in Settings → Ollama hosts and fork the session onto it", inFile)})
	return "", nil
}
