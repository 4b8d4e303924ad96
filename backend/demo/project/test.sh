#!/bin/sh
# The tests of slugify: sh test.sh. It exits 1 if a case fails.
. ./slug.sh

fails=0
report=""
check() {
	got=$(slugify "$1")
	if [ "$got" = "$2" ]; then
		report="${report}ok    \"$1\" -> $got
"
	else
		report="${report}FAIL  \"$1\": got \"$got\", want \"$2\"
"
		fails=$((fails + 1))
	fi
}

check "Hello World" "hello-world"
check "Hello, World!" "hello-world"
check "  Loupe: see the loop  " "loupe-see-the-loop"
check "Go 1.26" "go-1-26"

# The report is printed at once, in one piece.
if [ "$fails" -gt 0 ]; then
	printf '%s%s\n' "$report" "$fails of 4 cases failed"
	exit 1
fi
printf '%s%s\n' "$report" "all 4 cases passed"
