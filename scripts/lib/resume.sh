# Sourced by the training recipes (scripts/train-*.sh): runs an epoch run, or continues it.
#   train_or_resume TAG OUT CLI ARGS...   runs `CLI ARGS...`, or, when OUT.last.trainer exists (a run
#   that was killed, or is over), `CLI ARGS... --resume OUT.last`; a run that is over says so and the
#   recipe goes on. stderr (progress, or why there is nothing to do) is shown; stdout goes straight through.
train_or_resume() {
  local tag="$1" out="$2" cli="$3"
  shift 3
  if [ ! -f "$out.last.trainer" ]; then
    "$cli" "$@"
    return
  fi
  local rc
  set +e
  { "$cli" "$@" --resume "$out.last" 2>&1 >&3 | tee "$out.resume.log" >&2; } 3>&1
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    grep -qE 'nothing left to do|epochs already done' "$out.resume.log" || return "$rc"
    echo "[$tag] the training run in $out.last.trainer is over" >&2
  fi
  rm -f "$out.resume.log"
}
