# slugify TEXT prints TEXT as a slug: lower case, each run of characters
# other than letters and digits becomes one "-", and there is no "-" at
# either end.
slugify() {
	printf '%s\n' "$1" |
		tr '[:upper:]' '[:lower:]' |
		sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//'
}
