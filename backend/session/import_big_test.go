package session_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/backend/session"
	"github.com/loupe-dev/loupe/backend/store"
)

// writeBigExport writes, a piece at a time, an export of one session whose
// log is a message, events of 1 MiB each (pauses that carry a result,
// which costs no search text to index), and the run's end: about mb MiB.
func writeBigExport(t *testing.T, path string, mb int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stamp := func(i int) string {
		b, _ := at.Add(time.Duration(i) * time.Millisecond).MarshalJSON()
		return string(b)
	}
	n := mb + 2
	fmt.Fprintf(w, `{"format":"loupe-session","version":%d,"session":{"id":"big","title":"Big","workspace":"/home/me/project","model":"qwen3:0.6b","created_at":%s,"updated_at":%s,"last_reason":"answered","event_count":%d,"open_run":0,"pinned":false,"rounds":0,"running":false,"standing":"","stepping":false,"breakpoints":{"points":[],"tools":[]}},"events":[`,
		session.ExportVersion, stamp(0), stamp(n), n)
	fmt.Fprintf(w, `{"session_id":"big","seq":1,"kind":"user_message","time":%s,"run":1,"round":0,"payload":{"text":"go"}}`, stamp(1))
	chunk := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	for i := 2; i < n; i++ {
		fmt.Fprintf(w, `,{"session_id":"big","seq":%d,"kind":"checkpoint","time":%s,"run":1,"round":1,"payload":{"point":"after_result","state":"resumed","call_id":"c%d","result":"%s"}}`, i, stamp(i), i, chunk)
	}
	fmt.Fprintf(w, `,{"session_id":"big","seq":%d,"kind":"run_end","time":%s,"run":1,"round":1,"payload":{"reason":"answered","final_text":"done"}}],"tool_sets":{}}`, n, stamp(n))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// peakHeap samples the heap in use until stop is called, and returns the
// highest figure seen above what was in use when it began.
func peakHeap() (stop func() uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak {
				peak = m.HeapInuse - base
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// A big file is streamed: the memory an import takes is that of one event
// (a few times its 1 MiB), not the file's. LOUPE_IMPORT_MB sets the size
// (docs/BENCHMARKS.md has the figures for 1 GiB); -short makes it small.
func TestImportStreamsABigFile(t *testing.T) {
	mb := 64
	if testing.Short() {
		mb = 16
	}
	if v, err := strconv.Atoi(os.Getenv("LOUPE_IMPORT_MB")); err == nil && v > 0 {
		mb = v
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "big.json")
	writeBigExport(t, file, mb)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stop := peakHeap()
	began := time.Now()
	res, err := session.Import(context.Background(), st, f, "")
	took := time.Since(began)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != mb+2 {
		t.Fatalf("imported %d events, want %d", res.Events, mb+2)
	}
	t.Logf("imported %d MiB (%d events) in %v (%.0f MiB/s); heap in use rose by %.1f MiB at most",
		fi.Size()>>20, res.Events, took.Round(time.Millisecond), float64(fi.Size())/(1<<20)/took.Seconds(), float64(peak)/(1<<20))
	// A file read whole would take at least its size; one event at a
	// time takes a few MiB.
	if limit := uint64(32 << 20); peak > limit {
		t.Fatalf("the import's heap rose by %d MiB for a %d MiB file: it is not streamed (limit %d MiB)", peak>>20, fi.Size()>>20, limit>>20)
	}
	// The last event is whole.
	e, err := st.Event(context.Background(), "big", int64(mb+1))
	if err != nil {
		t.Fatal(err)
	}
	var cp struct{ Result string }
	if err := json.Unmarshal(e.Payload, &cp); err != nil || len(cp.Result) != 1<<20 {
		t.Fatalf("event %d: %d bytes of result, %v", e.Seq, len(cp.Result), err)
	}
}
