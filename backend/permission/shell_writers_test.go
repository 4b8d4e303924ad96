package permission

import (
	"strings"
	"testing"
)

// writerCase is a command that looks like a read but writes a file or
// runs a program, with the allow rule a user would write for the read.
type writerCase struct {
	allow  string // the read-only allow rule: "git log *"
	cmd    string
	reason string // a substring of one of the reasons
}

// writerCases: every form must ask in the default mode, with no rules and
// under the read-only allow rule.
var writerCases = []writerCase{
	// find
	{"find *", "find . -fprint .gi?/config", "find -fprint"},
	{"find *", "find . -fprint0 list", "find -fprint0"},
	{"find *", "find . -fprintf list '%p\\n'", "find -fprintf"},
	{"find *", "find . -fls list", "find -fls"},
	{"find *", "find . -name '*.tmp' -delete", "find -delete"},
	{"find *", "find . -exec rm {} +", "no rule allows rm"},
	{"find *", `find . -ok rm {} \;`, "no rule allows rm"},
	// sort
	{"sort *", "sort -o out.txt in.txt", "sort -o"},
	{"sort *", "sort --output=out.txt in.txt", "sort --output"},
	{"sort *", "sort --output out.txt in.txt", "sort --output"},
	{"sort *", "sort --out=out.txt in.txt", "writes to a file"}, // GNU takes abbreviations
	{"sort *", "sort -uo out.txt in.txt", "sort -o"},
	{"sort *", "sort -oout.txt in.txt", "sort -o"},
	{"sort *", "sort in.txt -o out.txt", "sort -o"}, // options after operands
	{"sort *", "sort --compress-program=gzip in.txt", "sort --compress-program"},
	// sed
	{"sed *", "sed -i s/a/b/ f.txt", "sed -i"},
	{"sed *", "sed -i.bak s/a/b/ f.txt", "sed -i"},
	{"sed *", "sed -ni p f.txt", "sed -i"},
	{"sed *", "sed -Ei 's/a+/b/' f.txt", "sed -i"},
	{"sed *", "sed --in-place s/a/b/ f.txt", "sed --in-place"},
	{"sed *", "sed --in-place=.bak s/a/b/ f.txt", "sed --in-place"},
	{"sed *", "sed 's/a/b/w out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed 's|a|b|gw out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed -n 'w out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed '/x/W out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed '1!{p;w out.txt\n}' f.txt", "sed script (w)"},
	{"sed *", "sed 's/[/]/x/w out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed -e 's/a/b/' -e 'w out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed --expression='w out.txt' f.txt", "sed script (w)"},
	{"sed *", "sed -f fix.sed f.txt", "sed -f"},
	{"sed *", "sed --file=fix.sed f.txt", "sed --file"},
	{"sed *", "sed 's/x/ls/e' f.txt", "runs commands"},
	{"sed *", "sed '1e ls' f.txt", "runs commands"},
	{"sed *", "sed \"$S\" f.txt", "no rule allows"},
	{"sed *", "sed 's/a/b' f.txt", "cannot read to the end"},
	// git
	{"git log *", "git log --output .gi?/config", "git log --output"},
	{"git log *", "git log --output=log.txt", "git log --output"},
	{"git log *", "git log -p --output=.git/config", "protected"},
	{"git diff *", "git diff --output=changes.patch", "git diff --output"},
	{"git show *", "git show --output out.txt HEAD", "git show --output"},
	{"git format-patch *", "git format-patch -o patches HEAD~1", "git format-patch -o"},
	{"git format-patch *", "git format-patch --output-directory=patches HEAD~1", "git format-patch --output-directory"},
	{"git archive *", "git archive -o a.tar HEAD", "git archive -o"},
	{"git grep *", "git grep -Ovim TODO", "git grep -O"},
	{"git grep *", "git grep --open-files-in-pager=vim TODO", "git grep -O"},
	{"git ls-remote *", "git ls-remote --upload-pack='touch x' .", "git ls-remote --upload-pack"},
	{"git *", "git -c core.pager='touch x' log", "git configuration"},
	{"git *", "git config core.pager 'touch x'", "protected"},
	{"git *", "git log --output=x.txt", "git log --output"},
	// rg
	{"rg *", "rg --pre cat TODO", "rg --pre"},
	{"rg *", "rg --pre=./unpack TODO", "rg --pre"},
	{"rg *", "rg --pre-glob '*.gz' TODO", "rg --pre-glob"},
	{"rg *", "rg --hostname-bin=./h TODO", "rg --hostname-bin"},
	// tee, dd
	{"tee *", "tee out.txt", "tee out.txt"},
	{"tee *", "tee -a log.txt", "tee log.txt"},
	{"tee *", "tee /dev/null out.txt", "tee out.txt"},
	{"dd *", "dd if=a.img of=b.img", "dd of="},
	// awk
	{"awk *", `awk '{print > "out.txt"}' f.txt`, "awk program (print >)"},
	{"awk *", `awk '{print $1 >> "out.txt"}' f.txt`, "awk program (print >)"},
	{"awk *", `awk '{printf("%s\n", $1) > "out.txt"}' f.txt`, "awk program (print >)"},
	{"awk *", `awk '{print > $2}' f.txt`, "awk program (print >)"},
	{"awk *", `awk '{print | "sort"}' f.txt`, "runs commands"},
	{"awk *", `awk 'BEGIN{system("ls")}'`, "runs commands"},
	{"awk *", `awk 'BEGIN{system(cmd)}'`, "runs commands"},
	{"awk *", `awk 'BEGIN{"date" | getline d; print d}'`, "runs commands"},
	{"awk *", `awk 'BEGIN { f = "system"; @f("ls") }'`, "runs commands"},
	{"awk *", `awk -f prog.awk f.txt`, "awk -f"},
	{"awk *", `gawk -i inplace '{sub(/a/, "b")} 1' f.txt`, "gawk -i"},
	{"gawk *", `gawk --profile=prof.txt '{print}' f.txt`, "gawk --profile"},
	{"awk *", `awk -v x=1 '{print x > "o.txt"}' f.txt`, "awk program (print >)"},
	{"awk *", `awk '{print "unterminated}' f.txt`, "runs commands"},
	// curl, wget
	{"curl *", "curl -o page.html https://example.com", "curl -o"},
	{"curl *", "curl -sSLo page.html https://example.com", "curl -o"},
	{"curl *", "curl --output page.html https://example.com", "curl --output"},
	{"curl *", "curl -O https://example.com/a.tgz", "curl -O"},
	{"curl *", "curl -D headers.txt https://example.com", "curl -D"},
	{"curl *", "curl -c cookies.txt https://example.com", "curl -c"},
	{"curl *", "curl -K opts.txt https://example.com", "curl -K"},
	{"wget *", "wget -O page.html https://example.com", "wget -O"},
	{"wget *", "wget -o log.txt https://example.com", "wget -o"},
	{"wget *", "wget -e robots=off https://example.com", "wget -e"},
	// tar
	{"tar *", "tar xzf a.tgz", "tar -x"},
	{"tar *", "tar -xf a.tar", "tar -x"},
	{"tar *", "tar -czf a.tgz src", "tar -c"},
	{"tar *", "tar --extract -f a.tar", "tar --extract"},
	{"tar *", "tar -tf a.tar -I 'touch x'", "tar -I"},
	{"tar *", "tar -xf a.tar --to-command='touch x'", "tar --to-command"},
	// uniq, xxd, less, man, and the rest of the family
	{"uniq *", "uniq in.txt out.txt", "uniq … out.txt"},
	{"uniq *", "uniq -f 1 in.txt out.txt", "uniq … out.txt"},
	{"xxd *", "xxd -r dump.hex out.bin", "xxd … out.bin"},
	{"xxd *", "xxd in.bin out.hex", "xxd … out.hex"},
	{"less *", "less -o log.txt f.txt", "less -o"},
	{"less *", "less --log-file=log.txt f.txt", "less --log-file"},
	{"man *", "man -P 'touch x' ls", "man -P"},
	{"shuf *", "shuf -o out.txt in.txt", "shuf -o"},
	{"iconv *", "iconv -f latin1 -t utf8 -o out.txt in.txt", "iconv -o"},
	{"sdiff *", "sdiff -o merged.txt a.txt b.txt", "sdiff -o"},
	{"tree *", "tree -o listing.txt", "tree -o"},
	{"yq *", "yq -i '.a = 1' f.yaml", "yq -i"},
	{"file *", "file -C -m magic", "file -C"},
	{"openssl *", "openssl x509 -in c.pem -out c.der", "openssl -out"},
	{"fd *", "fd -e tmp -x rm", "fd -x"},
	{"vim *", "vim -es -c 'w! x' f.txt", "vim -c"},
}

func TestWriterFormsAsk(t *testing.T) {
	for _, tc := range writerCases {
		for _, p := range []Policy{
			{Mode: ModeAsk},
			{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: tc.allow}}},
			{Mode: ModeAskAll, Rules: []Rule{{Effect: EffectAllow, Command: tc.allow}}},
		} {
			d := p.Decide(runCmd(tc.cmd))
			if d.Verdict != Ask {
				t.Errorf("%q with %v: %v by %q, want ask", tc.cmd, p.Rules, d.Verdict, d.By)
				continue
			}
			if len(p.Rules) > 0 && !containsReason(d.Reasons, tc.reason) {
				t.Errorf("%q with %v: reasons %q, want one containing %q", tc.cmd, p.Rules, d.Reasons, tc.reason)
			}
		}
	}
}

// TestReadOnlyFormsRun: the same allow rules still run the reads they
// are for, so that they stay worth writing.
func TestReadOnlyFormsRun(t *testing.T) {
	for _, tc := range []struct{ allow, cmd string }{
		{"find *", "find . -name '*.go' -type f"},
		{"find *", "find . -print"},
		{"sort *", "sort -u in.txt"},
		{"sort *", "sort -k2 -t, in.txt"},
		{"sort *", "sort -o /dev/stdout in.txt"},
		{"sed *", "sed -n 1,5p f.txt"},
		{"sed *", "sed 's/a/b/g' f.txt"},
		{"sed *", "sed -n '/w/p' f.txt"},
		{"sed *", "sed 's/w/W/' f.txt"},
		{"sed *", "sed 'y/w/W/' f.txt"},
		{"sed *", "sed -E 's/(a|b)/x/g' f.txt"},
		{"sed *", "sed -e 's/a/b/' -e 's/c/d/' f.txt"},
		{"sed *", "sed ':a;N;$!ba;s/\\n/ /g' f.txt"},
		{"sed *", "sed '/x/a\\\nwrite me' f.txt"},
		{"sed *", "sed -n 's/a/b/w /dev/stdout' f.txt"},
		{"git log *", "git log --oneline -n 5"},
		{"git log *", "git log --output-indicator-new=+ -p"},
		{"git diff *", "git diff --stat"},
		{"git grep *", "git grep -n -o TODO"},
		{"rg *", "rg -n TODO src"},
		{"rg *", "rg --pretty TODO"},
		{"tee *", "tee"},
		{"tee *", "tee /dev/null"},
		{"dd *", "dd if=a.img bs=1 count=10"},
		{"awk *", "awk '{print $1}' f.txt"},
		{"awk *", "awk '$3 > 100' f.txt"},
		{"awk *", "awk -F, '{s+=$2} END {print s}' f.txt"},
		{"awk *", "awk '/a|b/ {print}' f.txt"},
		{"awk *", "awk '{ if ($1 > 2) print $1 }' f.txt"},
		{"awk *", "awk '{print ($1 > 2)}' f.txt"},
		{"awk *", `awk '{print $1 > "/dev/stderr"}' f.txt`},
		{"awk *", `awk '{n = split($0, a, "|"); print n / 2}' f.txt`},
		{"curl *", "curl -s https://example.com"},
		{"curl *", "curl -sS -H 'Accept: text/plain' https://example.com"},
		{"curl *", "curl -o - https://example.com"},
		{"curl *", "curl -o /dev/null -w '%{http_code}' https://example.com"},
		{"wget *", "wget -qO- https://example.com"},
		{"tar *", "tar -tzf a.tgz"},
		{"tar *", "tar tf a.tar"},
		{"tar *", "tar --list -f a.tar"},
		{"uniq *", "uniq -c in.txt"},
		{"xxd *", "xxd -l 16 in.bin"},
		{"less *", "less f.txt"},
		{"man *", "man ls"},
	} {
		p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: tc.allow}}}
		if d := p.Decide(runCmd(tc.cmd)); d.Verdict != Run {
			t.Errorf("%q with allow %q: %v (%q), want run", tc.cmd, tc.allow, d.Verdict, d.Reasons)
		}
	}
}

// TestWriterFormNamedByRule: a rule that spells the writer out allows
// it; a * in its place does not.
func TestWriterFormNamedByRule(t *testing.T) {
	for _, tc := range []struct {
		allow, cmd string
		want       Verdict
	}{
		{"sort -o sorted.txt *", "sort -o sorted.txt in.txt", Run},
		{"sort -o * *", "sort -o sorted.txt in.txt", Run},
		{"sort --output=* *", "sort --output=sorted.txt in.txt", Run},
		{"sort * * *", "sort -o sorted.txt in.txt", Ask},
		{"sort -* * *", "sort -o sorted.txt in.txt", Ask},
		{"sed -i *", "sed -i s/a/b/ f.txt", Run},
		{"sed -i.bak *", "sed -i.bak s/a/b/ f.txt", Run},
		{"git log --output=* *", "git log --output=log.txt", Run},
		{"git log --output=*", "git log --output=.git/config", Ask}, // named, but .git/config is protected
		{"tee out.txt", "tee out.txt", Run},
		{"tee *.txt", "tee out.txt", Ask},
		{"find . -delete", "find . -delete", Run},
		{"tar -xf *", "tar -xf a.tar", Run},
		{"dd if=* of=b.img", "dd if=a.img of=b.img", Run},
		{"curl -o * *", "curl -o page.html https://example.com", Run},
		{"sed 's/a/b/w out.txt' *", "sed 's/a/b/w out.txt' f.txt", Run},
	} {
		p := Policy{Mode: ModeAsk, Rules: []Rule{{Effect: EffectAllow, Command: tc.allow}}}
		if d := p.Decide(runCmd(tc.cmd)); d.Verdict != tc.want {
			t.Errorf("%q with allow %q: %v (%q), want %v", tc.cmd, tc.allow, d.Verdict, d.Reasons, tc.want)
		}
	}
}

// TestWriterTargetsAreProtected: a writer option aimed at a protected
// file asks, once only, in every mode, auto included.
func TestWriterTargetsAreProtected(t *testing.T) {
	for _, cmd := range []string{
		"sort -o.git/config in.txt",
		"sed -i s/a/b/ .git/config",
		"sed 's/a/b/w .git/hooks/pre-commit' f.txt",
		"git log --output=.git/hooks/pre-push",
		"dd if=x of=.env",
		"tee .env.local",
		"find . -fprint .git/config",
		"awk '{print > \".git/config\"}' f.txt",
		"curl -o.git/hooks/pre-commit https://example.com",
	} {
		for _, mode := range []Mode{ModeAsk, ModeAuto} {
			d := Policy{Mode: mode, Rules: []Rule{{Effect: EffectAllow, Command: strings.Fields(cmd)[0] + " *"}}}.Decide(runCmd(cmd))
			if d.Verdict != Ask || !d.OnceOnly {
				t.Errorf("%s %q: %v once=%v (%q), want ask once", mode, cmd, d.Verdict, d.OnceOnly, d.Reasons)
			}
		}
	}
}

func TestScanSed(t *testing.T) {
	for _, tc := range []struct {
		script string
		writes string
		cmds   string
		runs   bool
		unsure bool
	}{
		{"s/a/b/", "", "", false, false},
		{"s/a/b/w out", "out", "", false, false},
		{"s/[/]/x/w o", "o", "", false, false},
		{"s/x/[/w f", "f", "", false, false}, // brackets only count in the regex
		{`s/a\/b/c/;w q`, "q", "", false, false},
		{"s/a/b/ ; w f", "f", "", false, false},
		{"b end;w a;:end", "a;:end", "", false, false}, // w takes the rest of the line
		{"a hello; w x", "", "", false, false},         // a takes the rest of the line
		{"a\\\nfoo\\\nw bar", "", "", false, false},
		{"# w x\np", "", "", false, false},
		{`\%x%w o`, "o", "", false, false},
		{"0~3w o", "o", "", false, false},
		{"/x/,+3W o", "o", "", false, false},
		{"e echo hi; echo there", "", "echo hi; echo there", false, false},
		{"s/x/y/;e", "", "", true, false},
		{"s/x/y/e", "", "", true, false},
		{"s/a/b", "", "", false, true},
		{"k", "", "", false, true},
		{"w", "", "", false, true},
	} {
		r := scanSed(tc.script)
		if strings.Join(r.writes, "|") != tc.writes || strings.Join(r.cmds, "|") != tc.cmds || r.runs != tc.runs || r.unsure != tc.unsure {
			t.Errorf("scanSed(%q) = %+v", tc.script, r)
		}
	}
}

func TestScanAwk(t *testing.T) {
	for _, tc := range []struct {
		prog           string
		writes, cmds   string
		dynW, dynC, ld bool
	}{
		{`{print $1}`, "", "", false, false, false},
		{`$1 > 5 {print}`, "", "", false, false, false},
		{`{print > "o"}`, "o", "", false, false, false},
		{`{print a, b > "o"; print c}`, "o", "", false, false, false},
		{`{print (a > b)}`, "", "", false, false, false},
		{`{print a || b > "o"}`, "o", "", false, false, false},
		{`{print > f}`, "", "", true, false, false},
		{`BEGIN{system("rm -rf d")}`, "", "rm -rf d", false, false, false},
		{`BEGIN{system("rm " d)}`, "", "", false, true, false},
		{`{print | "sort -u"}`, "", "sort -u", false, false, false},
		{`{print | cmd}`, "", "", false, true, false},
		{`BEGIN{while (("ls" | getline l) > 0) print l}`, "", "ls", false, false, false},
		{`BEGIN{c = "ls"; c | getline}`, "", "", false, true, false},
		{`/a|b/ {print}`, "", "", false, false, false},
		{`{x = $1 / 2; y = $2 / 3; print x}`, "", "", false, false, false},
		{`{print /"/ ; system("rm") ; x = "/"}`, "", "rm", false, false, false},
		{`@include "lib.awk"`, "", "", false, false, true},
		{`BEGIN{@f("x")}`, "", "", false, false, true},
	} {
		r := scanAwk(tc.prog)
		if strings.Join(r.writes, "|") != tc.writes || strings.Join(r.cmds, "|") != tc.cmds || r.dynWrite != tc.dynW || r.dynCmd != tc.dynC || r.loads != tc.ld || r.unsure {
			t.Errorf("scanAwk(%q) = %+v", tc.prog, r)
		}
	}
}
