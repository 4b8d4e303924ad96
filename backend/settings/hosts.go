package settings

import (
	"fmt"
	"strings"
)

// HostProfile is an Ollama server under a name of the user's ("gpu-box"
// for http://10.0.0.5:11434). A session started on it keeps the name, so
// editing the address in Settings moves the session's later runs too.
type HostProfile struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// LocalHostName is what the local host (OllamaHost, or where ChooseHost
// leads) is called where a name is asked for, as in `loupe run --host
// local`. No profile may take it.
const LocalHostName = "local"

// maxHostName bounds a profile's name: it is shown on every request card.
const maxHostName = 40

// checkHostName says what is wrong with a profile's name, if anything.
func checkHostName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("an Ollama host has no name; give each one a short name, like gpu-box")
	case len(name) > maxHostName:
		return fmt.Errorf("the Ollama host name %q is longer than %d characters", name, maxHostName)
	case strings.EqualFold(name, LocalHostName):
		return fmt.Errorf("the Ollama host name %q is taken by the local host (the one above); choose another", name)
	case name[0] == '-' || name[0] == '.':
		return fmt.Errorf("the Ollama host name %q must start with a letter or digit", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			// A name is also what `loupe run --host` takes: one without
			// ':' or '/' is never read as an address.
			return fmt.Errorf("the Ollama host name %q may hold only letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

func validateHosts(hosts []HostProfile) []string {
	var probs []string
	seen := map[string]bool{}
	for _, h := range hosts {
		name := strings.TrimSpace(h.Name)
		if err := checkHostName(name); err != nil {
			probs = append(probs, err.Error())
			continue
		}
		if seen[strings.ToLower(name)] {
			probs = append(probs, fmt.Sprintf("two Ollama hosts are named %q; give each its own name", name))
		}
		seen[strings.ToLower(name)] = true
		if strings.TrimSpace(h.URL) == "" {
			probs = append(probs, fmt.Sprintf("the Ollama host %q has no address; type one like %s", name, "http://10.0.0.5:11434"))
		} else if _, err := ParseOllamaHost(h.URL); err != nil {
			probs = append(probs, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return probs
}

// Profile returns the host named name (names match whatever their case).
func (s Settings) Profile(name string) (HostProfile, bool) {
	for _, h := range s.Hosts {
		if strings.EqualFold(h.Name, name) {
			return h, true
		}
	}
	return HostProfile{}, false
}

// HostRef reads a host as a person names one for a new session (the
// new-session dialog, `loupe run --host`): "" or "local" is the local host
// (""), a profile's name is that name as Settings spells it, anything else
// must be an address and is returned normalised. What a session stores is
// what this returns; Target reads it back.
func (s Settings) HostRef(in string) (string, error) {
	in = strings.TrimSpace(in)
	if in == "" || strings.EqualFold(in, LocalHostName) {
		return "", nil
	}
	if p, ok := s.Profile(in); ok {
		return p.Name, nil
	}
	u, err := ParseOllamaHost(in)
	if err != nil || !looksLikeAddress(in) {
		return "", fmt.Errorf("no Ollama host is named %q (%s); add it in Settings → Ollama hosts, or give an address like http://10.0.0.5:11434", in, s.hostNames())
	}
	return u, nil
}

// looksLikeAddress says whether a host that no name matches is meant as an
// address: one with a scheme or port, an IP address, localhost, or a name
// with a dot (gpu-box.lan). A bare word (gpubox) is far more often a name
// mistyped than a machine on the network.
func looksLikeAddress(in string) bool {
	if strings.ContainsAny(in, ":/") || strings.Contains(in, ".") {
		return true
	}
	return strings.EqualFold(in, "localhost")
}

func (s Settings) hostNames() string {
	if len(s.Hosts) == 0 {
		return "Settings names none besides the local one"
	}
	names := make([]string, len(s.Hosts))
	for i, h := range s.Hosts {
		names[i] = h.Name
	}
	return "the names are " + LocalHostName + ", " + strings.Join(names, ", ")
}

// Target is where a session's requests go.
type Target struct {
	// Name is the profile's name, "" for the local host or an address.
	Name string `json:"name"`
	// URL is the address, "" for the local host: the client's own host,
	// which Settings' Ollama host and --host move.
	URL string `json:"url"`
}

// Target reads what a session stores as its host (see HostRef). A name
// that Settings no longer has is an error saying what to do.
func (s Settings) Target(ref string) (Target, error) {
	switch {
	case ref == "":
		return Target{}, nil
	case strings.Contains(ref, "://"):
		return Target{URL: ref}, nil
	}
	p, ok := s.Profile(ref)
	if !ok {
		return Target{}, fmt.Errorf("this session runs on the Ollama host %q, which is no longer in Settings → Ollama hosts; add it there again with its address, or start a new session on another host", ref)
	}
	u, err := ParseOllamaHost(p.URL)
	if err != nil {
		return Target{}, fmt.Errorf("the Ollama host %q: %w", p.Name, err)
	}
	return Target{Name: p.Name, URL: u}, nil
}
