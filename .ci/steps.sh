# The step runner of .ci/run (sourced; bash). A step runs whatever came before it: a failure is
# recorded, never the end of the run. Each step's outcome goes to one results file as a line
# `LABEL<TAB>RESULT<TAB>SECONDS`, from the main shell or from a step run in the background alike,
# so the summary at the end covers every step however the run went.
#
#   ci_begin FILE            starts the results file
#   ci_step LABEL CMD...     runs CMD, records `passed` or `FAILED (exit N)` and its time;
#                            returns CMD's exit status (so a later step can depend on it)
#   ci_skip LABEL REASON     records a step that could not run (`skipped: REASON`, counted failed)
#   ci_summary               prints every step's result and time, the total and the verdict;
#                            returns 0 when every step passed, 1 otherwise

ci_begin() {
  CI_RESULTS=$1
  : >"$CI_RESULTS"
}

ci_record() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$CI_RESULTS"
}

ci_step() {
  local label=$1 start=$SECONDS status=0
  shift
  echo "::: $label"
  "$@" || status=$?
  if ((status == 0)); then
    ci_record "$label" passed $((SECONDS - start))
  else
    ci_record "$label" "FAILED (exit $status)" $((SECONDS - start))
    echo "::: $label: FAILED (exit $status)"
  fi
  return "$status"
}

ci_skip() {
  ci_record "$1" "skipped: $2" 0
  echo "::: $1: skipped: $2"
}

ci_summary() {
  local label result seconds steps=0 failed=0
  echo
  echo "::: CI steps"
  while IFS=$'\t' read -r label result seconds; do
    steps=$((steps + 1))
    [[ $result == passed ]] || failed=$((failed + 1))
    printf '%-52s %-28s %5d s\n' "$label" "$result" "$seconds"
  done <"$CI_RESULTS"
  printf '%-52s %-28s %5d s\n' "total" "" "$SECONDS"
  if ((failed == 0 && steps > 0)); then
    echo "::: CI passed: $steps of $steps steps"
    return 0
  fi
  echo "::: CI FAILED: $failed of $steps steps did not pass"
  return 1
}
