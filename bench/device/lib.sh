# Sourced by the scripts of bench/device on a lent GPU machine.
#
# smart_binary prints the smart binary to run: $SMART (bin/smart.gz, else bin/smart), unpacked to /tmp/smart first where it is
# a .gz (bench/device/pack.sh compresses the stripped binary so that it, the models and the
# working tree fit the device tool's 64 MiB carry limit).
smart_binary() {
  local s=${SMART:-}
  if [ -z "$s" ]; then
    s=bin/smart
    [ -f bin/smart.gz ] && s=bin/smart.gz
  fi
  case $s in
  *.gz)
    [ -x /tmp/smart ] && [ /tmp/smart -nt "$s" ] || { gunzip -c "$s" >/tmp/smart.part && chmod +x /tmp/smart.part && mv /tmp/smart.part /tmp/smart; } || return 1
    echo /tmp/smart
    ;;
  *) echo "$s" ;;
  esac
}

# seconds_left prints the seconds to the deadline DEADLINE_AT (epoch seconds), less $1, at
# least 0 and at most $2; without DEADLINE_AT, $2. A caller skips its step at 0 (timeout 0 would
# set no limit at all).
seconds_left() {
  if [ -z "${DEADLINE_AT:-}" ]; then
    echo "$2"
    return
  fi
  local left=$((DEADLINE_AT - $(date +%s) - $1))
  [ "$left" -gt 0 ] || left=0
  [ "$left" -lt "$2" ] || left=$2
  echo "$left"
}

# device_setup sets smart (the binary to run, unpacked), out ($OUT, made; /tmp/out by default)
# and backend ($BACKEND, cuda by default), or exits.
device_setup() {
  smart=$(smart_binary) || { echo "cannot unpack ${SMART:-the smart binary}"; exit 1; }
  out=${OUT:-/tmp/out}
  backend=${BACKEND:-cuda}
  mkdir -p "$out"
}

# card_dir prints the directory name under data/measured of the GPU named $1 (a catalogue name,
# as GPU gives it) or, without one, of the card nvidia-smi names (h100-sxm, h200); nothing for
# a card with none.
card_dir() {
  local name=$1
  [ -n "$name" ] || name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  case ${name,,} in
  *h100*) echo h100-sxm ;;
  *h200*) echo h200 ;;
  esac
}
