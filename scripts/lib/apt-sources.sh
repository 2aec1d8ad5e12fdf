# shellcheck shell=bash
# Reads this machine's configured apt sources, so that the scripts that fetch
# Debian packages (build-gf2x-native.sh, fetch-valgrind.sh) use whatever
# archive or mirror the machine points at and name no host themselves.
# Sourced, not run. Functions:
#
#   apt_sources_deb822
#       every configured source (apt's Dir::Etc::SourceList and the *.list and
#       *.sources files of Dir::Etc::SourceParts), one-line entries turned
#       into deb822 stanzas, stanzas with `Enabled: no` and comments left out
#   apt_sources_deb_src
#       a deb-src twin (same URIs, suites, components, Signed-By and other
#       options) of every configured `deb` source, as deb822 stanzas
#   apt_sources_debian_archive SUITE [COMPONENTS]
#       a `deb` stanza for SUITE (components default: main) on the machine's
#       Debian archive: the first configured `deb` source carrying the
#       machine's own release (VERSION_CODENAME of /etc/os-release) as a
#       suite, else the first with a bare release name as a suite (not
#       -security, -updates or -backports), with its URIs, Signed-By and
#       other options; Signed-By is the debian-archive-keyring when that
#       source names none and the keyring is installed
#   apt_sources_opts DIR
#       sets the array apt_opts: apt options that use DIR/sources.list.d
#       as the only sources and DIR's lists and cache, so that the system's
#       lists, cache and sources stay as they were (apt.conf settings such
#       as proxies still apply)

apt_sources_deb822() {
  local list parts f
  eval "$(apt-config shell list Dir::Etc::SourceList/f parts Dir::Etc::SourceParts/d)"
  {
    if [ -n "${list:-}" ] && [ -f "$list" ]; then
      case $list in
        *.sources) _apt_sources_stanzas < "$list" ;;
        *) _apt_sources_oneline < "$list" ;;
      esac
    fi
    if [ -n "${parts:-}" ] && [ -d "$parts" ]; then
      for f in "$parts"*.list "$parts"*.sources; do
        [ -f "$f" ] || continue
        case ${f##*/} in
          *[!A-Za-z0-9_.-]*) continue ;;  # apt ignores such names too
        esac
        case $f in
          *.sources) _apt_sources_stanzas < "$f" ;;
          *) _apt_sources_oneline < "$f" ;;
        esac
      done
    fi
  } | _apt_sources_enabled
}

# deb822 in, stanzas out with comments dropped and a blank line after each.
_apt_sources_stanzas() {
  awk '
    /^#/ { next }
    /^[ \t]*$/ { if (n) print ""; n = 0; next }
    { print; n++ }
    END { if (n) print "" }
  '
}

# One-line format in, deb822 out: `TYPE [OPT=V ...] URI SUITE [COMP ...]`.
_apt_sources_oneline() {
  awk '
    function field(k,   p, i, out, add) {
      add = ""
      if (k ~ /\+$/) { add = "-Add"; sub(/\+$/, "", k) }
      else if (k ~ /-$/) { add = "-Remove"; sub(/-$/, "", k) }
      if (k == "arch") k = "Architectures"
      else if (k == "lang") k = "Languages"
      else if (k == "target") k = "Targets"
      else if (k == "pdiffs") k = "PDiffs"
      else {
        i = split(k, p, "-"); out = ""
        for (j = 1; j <= i; j++)
          out = out (j > 1 ? "-" : "") toupper(substr(p[j], 1, 1)) substr(p[j], 2)
        k = out
      }
      return k add
    }
    {
      sub(/#.*/, "")
      if ($0 ~ /^[ \t]*$/) next
      line = $0
      # the options: "[ a=b c=d ]" right after the type, spaces allowed
      opts = ""
      if (match(line, /\[[^]]*\]/)) {
        opts = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, 1, RSTART - 1) " " substr(line, RSTART + RLENGTH)
      }
      n = split(line, w, /[ \t]+/)
      k = 0
      for (i = 1; i <= n; i++) if (w[i] != "") v[++k] = w[i]
      if (k < 3) next
      print "Types: " v[1]
      print "URIs: " v[2]
      print "Suites: " v[3]
      if (k > 3) {
        c = v[4]
        for (i = 5; i <= k; i++) c = c " " v[i]
        print "Components: " c
      }
      m = split(opts, o, /[ \t]+/)
      for (i = 1; i <= m; i++) {
        if (o[i] == "" || index(o[i], "=") == 0) continue
        key = substr(o[i], 1, index(o[i], "=") - 1)
        val = substr(o[i], index(o[i], "=") + 1)
        print field(key) ": " val
      }
      print ""
    }
  '
}

# Drops stanzas with `Enabled: no`.
_apt_sources_enabled() {
  awk '
    BEGIN { RS = ""; ORS = "\n\n" }
    {
      if (tolower($0) ~ /(^|\n)enabled:[ \t]*no([ \t]|\n|$)/) next
      print
    }
  '
}

apt_sources_deb_src() {
  apt_sources_deb822 | awk '
    BEGIN { RS = ""; ORS = "\n\n" }
    {
      n = split($0, l, "\n"); deb = 0; out = ""
      for (i = 1; i <= n; i++) {
        if (tolower(l[i]) ~ /^types:/) {
          t = " " substr(l[i], 7) " "
          if (t ~ /[ \t]deb[ \t]/) deb = 1
          continue
        }
        out = out l[i] "\n"
      }
      if (deb) printf "Types: deb-src\n%s\n", out
    }
  '
}

apt_sources_debian_archive() {
  local suite=$1 components=${2:-main} codename keyring
  # shellcheck disable=SC1091
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  keyring=
  if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  fi
  apt_sources_deb822 | awk -v codename="$codename" -v suite="$suite" \
      -v components="$components" -v keyring="$keyring" '
    BEGIN { RS = "" }
    {
      n = split($0, l, "\n"); deb = 0; ours = 0; plain = 0; signed = 0
      out = ""; skip = 0
      for (i = 1; i <= n; i++) {
        low = tolower(l[i])
        if (l[i] ~ /^[ \t]/) {          # continuation of the field above
          if (!skip) out = out l[i] "\n"
          continue
        }
        skip = 0
        if (low ~ /^types:/) {
          if ((" " substr(l[i], 7) " ") ~ /[ \t]deb[ \t]/) deb = 1
          skip = 1
        } else if (low ~ /^suites:/) {
          m = split(substr(l[i], 8), s, /[ \t]+/)
          for (j = 1; j <= m; j++) {
            if (s[j] == "") continue
            if (codename != "" && s[j] == codename) ours = 1
            # the main archive: a bare release name, not -security,
            # -updates, -backports or a flat path
            if (s[j] !~ /[-\/]/) plain = 1
          }
          skip = 1
        } else if (low ~ /^components:/) {
          skip = 1
        } else {
          if (low ~ /^signed-by:/) signed = 1
          out = out l[i] "\n"
        }
      }
      if (!deb) next
      if (!signed && keyring != "") out = out "Signed-By: " keyring "\n"
      if (ours && best == "") best = out
      if (plain && first == "") first = out
    }
    END {
      if (best == "") best = first
      if (best == "") exit 1
      printf "Types: deb\nSuites: %s\nComponents: %s\n%s\n", suite, components, best
    }
  ' || {
    echo "apt-sources: no configured deb source of the Debian archive" \
      "(suite ${codename:-?}, or a bare release name) to take its URI from" >&2
    return 1
  }
}

apt_sources_opts() {
  local dir=$1
  mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
  # shellcheck disable=SC2034  # read by the sourcing script
  apt_opts=(
    -o Dir::Etc::SourceList="$dir/sources.list.d/none.list"
    -o Dir::Etc::SourceParts="$dir/sources.list.d"
    -o Dir::State::Lists="$dir/lists"
    -o Dir::Cache="$dir/cache"
    -o APT::Get::List-Cleanup=0
    -o APT::Sandbox::User=root
  )
}
