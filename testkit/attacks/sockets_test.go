//go:build linux

package attacks_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/testkit/gguf"
	"github.com/loupe-dev/loupe/testkit/procs"
)

// TestSocketsOfTheSessionAreUnreachable connects to Unix sockets
// that serve the user's session, unconfined: plain listeners in /tmp, under
// $HOME, in /var/tmp and next to the workspace, one in the abstract
// namespace, a tmux server (which runs any command its clients send) in
// /tmp and one whose socket is in the workspace itself, and an ssh-agent
// holding a key. A network namespace does not cover sockets that are files.
// The listeners must accept nothing, tmux must run nothing, and ssh-add
// must say it cannot connect.
func TestSocketsOfTheSessionAreUnreachable(t *testing.T) {
	l := newLab(t)
	tmp, err := os.MkdirTemp("/tmp", "loupe-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	varTmp, err := os.MkdirTemp("/var/tmp", "loupe-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(varTmp) })
	projects := l.elsewhere(t) // outside $HOME and /tmp
	inTmp := listen(t, filepath.Join(tmp, "app.sock"))
	inHome := listen(t, filepath.Join(l.home, ".local", "run", "app.sock"))
	inVarTmp := listen(t, filepath.Join(varTmp, "app.sock"))
	nextDoor := listen(t, filepath.Join(projects, "dev.sock"))
	abstract := listen(t, "@"+secret("abstract"))
	tmuxSock := l.startTmux(t, filepath.Join(tmp, "tmux.sock"))
	// A tmux server whose socket the user keeps with the project: the
	// command can see it, but must not be able to use it.
	tmuxWorkspace := filepath.Join(projects, "app")
	mkdirs(t, tmuxWorkspace)
	l.startTmux(t, filepath.Join(tmuxWorkspace, ".tmux.sock"))
	agentSock, keyComment := l.startSSHAgent(t, filepath.Join(tmp, "agent.sock"))
	m := l.markers("sockets")

	type attack struct {
		name    string
		command string
		// harm says what the attack achieved, given what the command
		// printed and whether it ran at all; "" when nothing.
		harm func(t *testing.T, output string, ran bool) string
		// workspace is where the command runs; "" means a fresh folder.
		workspace string
	}
	reached := func(ln *listener) func(*testing.T, string, bool) string {
		return func(t *testing.T, _ string, _ bool) string {
			if n, first := ln.take(t); n > 0 {
				return fmt.Sprintf("the listener %s accepted %d connection(s); it was sent %q", ln.path, n, first)
			}
			return ""
		}
	}
	python := func(path string) string {
		return `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1].replace("@", "\0", 1)); s.sendall(b"hello from the sandbox"); print("connected")' ` + path
	}
	var attacks []attack
	for _, ln := range []struct {
		where string
		*listener
	}{{"in /tmp", inTmp}, {"under $HOME", inHome}} {
		attacks = append(attacks,
			attack{name: "python3 to the listener " + ln.where, command: python(ln.path), harm: reached(ln.listener)},
			attack{name: "socat to the listener " + ln.where, command: `echo hello from the sandbox | socat -t 2 - UNIX-CONNECT:` + ln.path, harm: reached(ln.listener)},
			attack{name: "nc -U to the listener " + ln.where, command: `echo hello from the sandbox | nc -N -w 2 -U ` + ln.path, harm: reached(ln.listener)},
		)
	}
	ran := func(name string) func(*testing.T, string, bool) string {
		return func(*testing.T, string, bool) string {
			// tmux runs the command in the server, but run-shell (without
			// -b) returns only once the command has finished: a marker it
			// made is there when the command that sent it has ended.
			if len(m.present()) > 0 {
				return fmt.Sprintf("the %s ran the command: markers %v", name, m.present())
			}
			return ""
		}
	}
	attacks = append(attacks,
		attack{name: "python3 to the listener in /var/tmp", command: python(inVarTmp.path), harm: reached(inVarTmp)},
		attack{name: "python3 to the listener next to the workspace", command: python(nextDoor.path), harm: reached(nextDoor)},
		attack{name: "python3 to an abstract socket", command: python(abstract.path), harm: reached(abstract)},
		attack{name: "socat to an abstract socket", command: `echo hello from the sandbox | socat -t 2 - ABSTRACT-CONNECT:` + strings.TrimPrefix(abstract.path, "@"), harm: reached(abstract)},
		attack{name: "tmux run-shell", command: `tmux -S ` + tmuxSock + ` run-shell 'touch ` + m.path("tmux") + `'`, harm: ran("tmux server")},
		attack{name: "tmux run-shell with the socket in the workspace", command: `tmux -S .tmux.sock run-shell 'touch ` + m.path("tmux-workspace") + `'`,
			harm: ran("tmux server of the workspace"), workspace: tmuxWorkspace},
		attack{name: "ssh-add -l", command: `SSH_AUTH_SOCK=` + agentSock + ` ssh-add -l`, harm: func(_ *testing.T, out string, ran bool) string {
			switch {
			case strings.Contains(out, keyComment):
				return "ssh-add listed the key the agent holds"
			case strings.Contains(out, "has no identities"):
				return "ssh-add reached the agent"
			case ran && !strings.Contains(out, "connect"):
				return fmt.Sprintf("ssh-add ran but did not say it cannot connect: %q", clip(out, 300))
			}
			return ""
		}},
	)
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			workspace := func() string {
				if a.workspace != "" {
					return a.workspace
				}
				return l.fresh("ws")
			}
			t.Run("control", func(t *testing.T) {
				out := l.shell(t, workspace(), a.command)
				if a.harm(t, out, true) == "" {
					t.Fatalf("run with sh outside Loupe, the attack reached nothing: fix the attack\n%s", out)
				}
				clearMarkers(t, m)
			})
			for _, md := range modes {
				t.Run(md.name, func(t *testing.T) {
					o := l.run(t, runOpts{workspace: workspace(), auto: md.auto, calls: []gguf.Call{runCommand(a.command)}})
					t.Log(o.summary())
					ran := false
					for _, c := range o.calls() {
						ran = ran || c.ran()
					}
					if h := a.harm(t, strings.Join(o.results(), "\n"), ran); h != "" {
						t.Error(h)
					}
					clearMarkers(t, m)
				})
			}
		})
	}
}

// listener is a Unix-socket server of the test's own, counting who connects.
type listener struct {
	path string

	mu       sync.Mutex
	accepted int // connections accepted, the test's own included
	read     int // of those, the ones whose read is over
	readAll  *sync.Cond
	conns    int
	first    string      // what the first connection sent
	flushes  int         // numbers the test's own connections
	flushed  chan string // what the test's own connections sent
}

// flushMark starts what the test's own connections send (take).
const flushMark = "loupe-attacks-flush-"

// listen listens on path; "@name" is a socket of the abstract namespace.
func listen(t *testing.T, path string) *listener {
	t.Helper()
	if !strings.HasPrefix(path, "@") {
		mkdirs(t, filepath.Dir(path))
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	l := &listener{path: path, flushed: make(chan string, 1)}
	l.readAll = sync.NewCond(&l.mu)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.mu.Lock()
			l.accepted++
			l.mu.Unlock()
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				buf := make([]byte, 64)
				n, _ := c.Read(buf)
				got := string(buf[:n])
				l.mu.Lock()
				defer l.mu.Unlock()
				l.read++
				l.readAll.Broadcast()
				if strings.HasPrefix(got, flushMark) {
					l.flushed <- got
					return
				}
				if l.conns == 0 {
					l.first = got
				}
				l.conns++
			}()
		}
	}()
	return l
}

// take returns the connections so far and what the first one sent, and
// starts counting again. To know that none is still on its way, it
// connects itself: the kernel hands out connections in the order they
// came, so once the listener has read this one, it has accepted every
// earlier one; take then waits until those are read (each read ends within
// its deadline).
func (l *listener) take(t *testing.T) (int, string) {
	t.Helper()
	l.mu.Lock()
	l.flushes++
	mark := fmt.Sprintf("%s%d", flushMark, l.flushes)
	l.mu.Unlock()
	c, err := net.DialTimeout("unix", l.path, 10*time.Second)
	if err != nil {
		t.Fatalf("the listener %s does not accept the test's own connection: %v", l.path, err)
	}
	_, err = c.Write([]byte(mark))
	c.Close()
	if err != nil {
		t.Fatalf("writing to the listener %s: %v", l.path, err)
	}
	select {
	case got := <-l.flushed:
		if got != mark {
			t.Fatalf("the listener %s read %q from the test's own connection, want %q", l.path, got, mark)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the listener %s did not read the test's own connection within 10 s", l.path)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.read < l.accepted {
		l.readAll.Wait()
	}
	n, first := l.conns, l.first
	l.conns, l.first = 0, ""
	return n, first
}

// startTmux starts a tmux server on sock, as a user with a detached session
// has one, and kills it when the test ends.
func (l *lab) startTmux(t *testing.T, sock string) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: run scripts/deps.sh")
	}
	cmd := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "loupe-attack", "sleep 3600")
	cmd.Env = l.env("TERM=xterm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		kill := exec.Command("tmux", "-S", sock, "kill-server")
		kill.Env = l.env("TERM=xterm")
		_ = kill.Run()
		// The server is named by its socket on its command line.
		for _, pid := range procs.Containing(sock) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return sock
}

// startSSHAgent starts an ssh-agent on sock holding a new key, and kills it
// when the test ends. It returns the socket and the key's comment, which
// `ssh-add -l` prints when it reaches the agent.
func (l *lab) startSSHAgent(t *testing.T, sock string) (string, string) {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run scripts/deps.sh", tool)
		}
	}
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	agent.Env = l.env()
	agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-agent.Process.Pid, syscall.SIGKILL)
		_ = agent.Wait()
	})
	waitAccepting(t, sock, "ssh-agent")
	comment := secret("ssh-key")
	key := filepath.Join(l.fresh("key"), "id_ed25519")
	for _, args := range [][]string{
		{"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", key},
		{"ssh-add", "-q", key},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = l.env("SSH_AUTH_SOCK=" + sock)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return sock, comment
}

// waitAccepting waits until the Unix socket path accepts a connection: the
// file appears when the server binds it, a moment before it listens.
func waitAccepting(t *testing.T, path, server string) {
	t.Helper()
	var err error
	if !eventually(10*time.Second, func() bool {
		var c net.Conn
		if c, err = net.Dial("unix", path); err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("%s does not accept connections on %s after 10 s: %v", server, path, err)
	}
}
