//go:build linux

// Package hostipc plays a user's other programs for the sandbox's tests: it
// creates the kernel's shared objects they keep (a System V shared memory
// segment, message queue and semaphore set, a POSIX message queue), and
// Attack, run as a command, tries to list, attach, read, change and remove
// them. Check says whether they are still as they were made.
package hostipc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Secret is what the objects hold: a command that reads one prints it.
const Secret = "host-ipc-secret"

const (
	shmSize = 4096
	semVal  = 7
	msgType = 1
)

// Objects are the ones Create made, in the test process's IPC namespace.
type Objects struct {
	ShmKey, ShmID int
	MsgKey, MsgID int
	SemKey, SemID int
	// MQ is the POSIX queue's name, without the leading slash.
	MQ string
}

// Create makes one object of each kind, readable and writable by the user
// (mode 0600), each holding Secret, and removes them when the test ends.
func Create(t testing.TB) *Objects {
	t.Helper()
	o := &Objects{MQ: fmt.Sprintf("loupe-test-%d-%d", os.Getpid(), rand.Uint32())}
	key := func() int { return int(rand.Int32N(1<<30)) + 1 }
	var err error
	o.ShmKey = key()
	if o.ShmID, err = unix.SysvShmGet(o.ShmKey, shmSize, unix.IPC_CREAT|unix.IPC_EXCL|0o600); err != nil {
		t.Fatalf("shmget: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(o.ShmID, unix.IPC_RMID, nil) })
	mem, err := unix.SysvShmAttach(o.ShmID, 0, 0)
	if err != nil {
		t.Fatalf("shmat: %v", err)
	}
	copy(mem, Secret)
	_ = unix.SysvShmDetach(mem)

	o.MsgKey = key()
	if o.MsgID, err = msgget(o.MsgKey, unix.IPC_CREAT|unix.IPC_EXCL|0o600); err != nil {
		t.Fatalf("msgget: %v", err)
	}
	t.Cleanup(func() { _ = ctl(unix.SYS_MSGCTL, o.MsgID, 0, unix.IPC_RMID, 0) })
	if err := msgsnd(o.MsgID, Secret); err != nil {
		t.Fatalf("msgsnd: %v", err)
	}

	o.SemKey = key()
	if o.SemID, err = semget(o.SemKey, unix.IPC_CREAT|unix.IPC_EXCL|0o600); err != nil {
		t.Fatalf("semget: %v", err)
	}
	t.Cleanup(func() { _ = ctl(unix.SYS_SEMCTL, o.SemID, 0, unix.IPC_RMID, 0) })
	if err := ctl(unix.SYS_SEMCTL, o.SemID, 0, setVal, semVal); err != nil {
		t.Fatalf("semctl SETVAL: %v", err)
	}

	fd, err := mqOpen(o.MQ, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NONBLOCK)
	if err != nil {
		t.Fatalf("mq_open: %v", err)
	}
	t.Cleanup(func() { _ = mqUnlink(o.MQ) })
	defer unix.Close(fd)
	if err := mqSend(fd, Secret); err != nil {
		t.Fatalf("mq_timedsend: %v", err)
	}
	return o
}

// Args are the arguments Attack takes to go after o.
func (o *Objects) Args() []string {
	return []string{strconv.Itoa(o.ShmKey), strconv.Itoa(o.ShmID), strconv.Itoa(o.MsgKey), strconv.Itoa(o.MsgID),
		strconv.Itoa(o.SemKey), strconv.Itoa(o.SemID), o.MQ}
}

// ListScript is shell that lists the objects with the system's tools; its
// output holds o's keys (ipcs prints them as 0x%08x) when it sees them.
func (o *Objects) ListScript() string {
	return "ipcs 2>&1; cat /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem 2>&1; ls -a /dev/mqueue 2>&1; " +
		fmt.Sprintf("ipcrm -M %d -Q %d -S %d 2>&1; rm -f /dev/mqueue/%s 2>&1", o.ShmKey, o.MsgKey, o.SemKey, o.MQ)
}

// Seen reports which of o's keys or names out shows as the tools list
// them: ipcs's 0x%08x keys, a /proc/sysvipc line of a key, an ls line of
// the POSIX queue.
func (o *Objects) Seen(out string) []string {
	var seen []string
	keys := map[string]bool{}
	for _, k := range []int{o.ShmKey, o.MsgKey, o.SemKey} {
		if hex := fmt.Sprintf("0x%08x", k); strings.Contains(out, hex) {
			seen = append(seen, hex)
		}
		keys[strconv.Itoa(k)] = true
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && keys[f[0]]:
			seen = append(seen, "key "+f[0])
		case line == o.MQ:
			seen = append(seen, o.MQ)
		}
	}
	return seen
}

// Check says what is no longer as Create made it ("" when all is).
func (o *Objects) Check() string {
	var bad []string
	if mem, err := unix.SysvShmAttach(o.ShmID, 0, unix.SHM_RDONLY); err != nil {
		bad = append(bad, "the shared memory segment is gone: "+err.Error())
	} else {
		if !bytes.HasPrefix(mem, []byte(Secret+"\x00")) {
			bad = append(bad, fmt.Sprintf("the shared memory segment was changed: %q", bytes.TrimRight(mem[:64], "\x00")))
		}
		_ = unix.SysvShmDetach(mem)
	}
	switch text, err := msgrcv(o.MsgID); {
	case err != nil:
		bad = append(bad, "the message queue lost its message or is gone: "+err.Error())
	case text != Secret:
		bad = append(bad, fmt.Sprintf("the message queue holds %q", text))
	default:
		_ = msgsnd(o.MsgID, Secret) // as it was
		if extra, err := msgrcv(o.MsgID); err == nil && extra != Secret {
			bad = append(bad, fmt.Sprintf("a message was added to the queue: %q", extra))
		}
	}
	if v, err := semGet(o.SemID); err != nil {
		bad = append(bad, "the semaphore set is gone: "+err.Error())
	} else if v != semVal {
		bad = append(bad, fmt.Sprintf("the semaphore is %d, not %d", v, semVal))
	}
	if fd, err := mqOpen(o.MQ, unix.O_RDONLY|unix.O_NONBLOCK); err != nil {
		bad = append(bad, "the POSIX message queue is gone: "+err.Error())
	} else {
		if n, err := mqCount(fd); err != nil || n != 1 {
			bad = append(bad, fmt.Sprintf("the POSIX message queue holds %d messages, not 1 (%v)", n, err))
		}
		unix.Close(fd)
	}
	return strings.Join(bad, "; ")
}

// Attack is a command's program: given Args, it tries everything a process
// of the user can do to the objects and prints "reached: …" for each thing
// that worked. It returns 0.
func Attack(args []string) int {
	if len(args) != 7 {
		fmt.Println("usage: SHMKEY SHMID MSGKEY MSGID SEMKEY SEMID MQNAME")
		return 2
	}
	n := make([]int, 6)
	for i := range n {
		n[i], _ = strconv.Atoi(args[i])
	}
	shmKey, shmID, msgKey, msgID, semKey, semID, mq := n[0], n[1], n[2], n[3], n[4], n[5], args[6]
	reached := func(what string, err error) {
		if err == nil {
			fmt.Println("reached:", what)
		} else {
			fmt.Printf("refused: %s (%v)\n", what, err)
		}
	}
	for _, f := range []string{"shm", "msg", "sem"} {
		b, err := os.ReadFile("/proc/sysvipc/" + f)
		if err == nil {
			for _, k := range []int{shmKey, msgKey, semKey} {
				if bytes.Contains(b, []byte(" "+strconv.Itoa(k)+" ")) {
					reached("listed key "+strconv.Itoa(k)+" in /proc/sysvipc/"+f, nil)
				}
			}
		}
	}
	_, err := unix.SysvShmGet(shmKey, 0, 0)
	reached("shmget of the host's key", err)
	if mem, err := unix.SysvShmAttach(shmID, 0, 0); err != nil {
		reached("shmat of the host's segment", err)
	} else {
		reached("shmat of the host's segment", nil)
		if bytes.HasPrefix(mem, []byte(Secret)) {
			reached("read the host's segment: "+Secret, nil)
		}
		copy(mem, "overwritten by the command\x00")
		reached("wrote the host's segment", nil)
		_ = unix.SysvShmDetach(mem)
	}
	_, err = unix.SysvShmCtl(shmID, unix.IPC_RMID, nil)
	reached("removed the host's segment", err)

	_, err = msgget(msgKey, 0)
	reached("msgget of the host's key", err)
	if text, err := msgrcv(msgID); err == nil {
		reached("took the host's message: "+text, nil)
	} else {
		reached("msgrcv from the host's queue", err)
	}
	reached("sent to the host's queue", msgsnd(msgID, "from the command"))
	reached("removed the host's queue", ctl(unix.SYS_MSGCTL, msgID, 0, unix.IPC_RMID, 0))

	_, err = semget(semKey, 0)
	reached("semget of the host's key", err)
	_, err = semGet(semID)
	reached("read the host's semaphore", err)
	reached("set the host's semaphore", ctl(unix.SYS_SEMCTL, semID, 0, setVal, 0))
	reached("removed the host's semaphore set", ctl(unix.SYS_SEMCTL, semID, 0, unix.IPC_RMID, 0))

	if fd, err := mqOpen(mq, unix.O_RDWR|unix.O_NONBLOCK); err != nil {
		reached("mq_open of the host's queue", err)
	} else {
		reached("mq_open of the host's queue", nil)
		if text, err := mqReceive(fd); err == nil {
			reached("took the host's POSIX message: "+text, nil)
		}
		reached("sent to the host's POSIX queue", mqSend(fd, "from the command"))
		unix.Close(fd)
	}
	reached("mq_unlink of the host's queue", mqUnlink(mq))
	return 0
}

// The System V calls x/sys/unix has no wrappers for.

const (
	setVal = 16 // SETVAL
	getVal = 12 // GETVAL
)

func msgget(key, flags int) (int, error) {
	id, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key), uintptr(flags), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(id), nil
}

func semget(key, flags int) (int, error) {
	nsems := 1
	if flags&unix.IPC_CREAT == 0 {
		nsems = 0
	}
	id, _, errno := unix.Syscall(unix.SYS_SEMGET, uintptr(key), uintptr(nsems), uintptr(flags))
	if errno != 0 {
		return 0, errno
	}
	return int(id), nil
}

func ctl(sys uintptr, id, num, cmd, arg int) error {
	var errno unix.Errno
	if sys == unix.SYS_SEMCTL {
		_, _, errno = unix.Syscall6(sys, uintptr(id), uintptr(num), uintptr(cmd), uintptr(arg), 0, 0)
	} else {
		_, _, errno = unix.Syscall(sys, uintptr(id), uintptr(cmd), 0)
	}
	if errno != 0 {
		return errno
	}
	return nil
}

func semGet(id int) (int, error) {
	v, _, errno := unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, getVal, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

type msgbuf struct {
	mtype int64
	mtext [256]byte
}

func msgsnd(id int, text string) error {
	m := msgbuf{mtype: msgType}
	copy(m.mtext[:], text)
	_, _, errno := unix.Syscall6(unix.SYS_MSGSND, uintptr(id), uintptr(unsafe.Pointer(&m)), uintptr(len(text)), unix.IPC_NOWAIT, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func msgrcv(id int) (string, error) {
	var m msgbuf
	n, _, errno := unix.Syscall6(unix.SYS_MSGRCV, uintptr(id), uintptr(unsafe.Pointer(&m)), uintptr(len(m.mtext)), 0, unix.IPC_NOWAIT, 0)
	if errno != 0 {
		return "", errno
	}
	return string(m.mtext[:n]), nil
}

// POSIX message queues, by the kernel's calls (the name without its
// leading slash).

func mqOpen(name string, flags int) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return 0, err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), 0o600, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(fd), nil
}

func mqUnlink(name string) error {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0); errno != 0 {
		return errno
	}
	return nil
}

func mqSend(fd int, text string) error {
	b := []byte(text)
	if _, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDSEND, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

func mqReceive(fd int) (string, error) {
	b := make([]byte, 8192) // at least the queue's message size (the default)
	var prio uint32
	n, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDRECEIVE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&prio)), 0, 0)
	if errno != 0 {
		return "", errno
	}
	return string(b[:n]), nil
}

type mqAttr struct {
	flags, maxmsg, msgsize, curmsgs int64
	_                               [4]int64
}

func mqCount(fd int) (int, error) {
	var a mqAttr
	if _, _, errno := unix.Syscall(unix.SYS_MQ_GETSETATTR, uintptr(fd), 0, uintptr(unsafe.Pointer(&a))); errno != 0 {
		return 0, errno
	}
	return int(a.curmsgs), nil
}
