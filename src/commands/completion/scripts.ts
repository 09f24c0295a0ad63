/**
 * The completion scripts for bash, zsh and fish, written from the command tree (tree.ts). Each is
 * self-contained: the commands, options and fixed values are in the script (bash needs no
 * bash-completion package); only profile names are asked at completion time, of
 * `svc auth list --names`, which prints names and nothing else.
 *
 * The three walk the words before the cursor the same way: a subcommand of the current path
 * extends it; an option taking a value skips the next word (unless given as `--opt=value`);
 * anything else is a positional argument. `svc help …` walks a command path of its own.
 */

import { fishScript } from './fish.js';
import { type Flat, flatten, header, key, type Shell, short, sq } from './flat.js';
import type { CompletionTree } from './tree.js';

export { SHELLS, type Shell } from './flat.js';

/** Data functions shared by bash and zsh (same `case` syntax): each sets REPLY. */
function shData(f: Flat, tree: CompletionTree): string {
  const subs = f.nodes
    .filter((n) => n.commands.length > 0)
    .map((n) => `    ${sq(key(n))}) REPLY=${sq(n.commands.map((c) => c.name).join(' '))} ;;`);
  const opts = f.nodes.map(
    (n) =>
      `    ${sq(key(n))}) REPLY=${sq(
        f
          .optionsAt(n)
          .map((o) => o.names[0])
          .join(' '),
      )} ;;`,
  );
  const valopts = f.nodes.map(
    (n) =>
      `    ${sq(key(n))}) REPLY=${sq(
        ` ${f
          .optionsAt(n)
          .filter((o) => o.takesValue)
          .flatMap((o) => o.names)
          .join(' ')} `,
      )} ;;`,
  );
  const values = f.values.map(({ path, what, value, global }) => {
    const pattern = global ? `*${sq(`|${what}`)}` : sq(`${path}|${what}`);
    if ('words' in value) return `    ${pattern}) __svc_kind=words REPLY=${sq(value.words.join(' '))} ;;`;
    return `    ${pattern}) __svc_kind=${'files' in value ? 'files' : 'profiles'} ;;`;
  });
  return `# The command tree: subcommands, options, options taking a value, and what values complete to.
__svc_subs() {
  case "$1" in
${subs.join('\n')}
    *) REPLY='' ;;
  esac
}
__svc_opts() {
  case "$1" in
${opts.join('\n')}
    *) REPLY='' ;;
  esac
}
__svc_valopts() {
  case "$1" in
${valopts.join('\n')}
    *) REPLY=' ' ;;
  esac
}
# $1: command path, $2: option, or #N for its Nth argument. Sets __svc_kind (words, files,
# profiles or none) and REPLY (the words).
__svc_value() {
  __svc_kind=none
  REPLY=''
  case "$1|$2" in
${values.join('\n')}
  esac
}
__svc_help_topics=${sq(tree.helpTopics.join(' '))}
`;
}

/**
 * The walk over the words before the cursor, in the syntax bash and zsh share. `$1` is the index
 * of the first word after `svc`; it reads `__svc_words` and `__svc_cword` (index of the cursor's
 * word) and sets cmdpath, helping, helppath, nargs and skip in its caller's scope.
 */
const SH_WALK = `__svc_walk() {
  local i w
  for ((i = $1; i < __svc_cword; i++)); do
    w="\${__svc_words[i]}"
    if [[ -n "$skip" ]]; then skip=''; continue; fi
    case "$w" in
      =) skip=1 ;;
      --*=*) ;;
      -*)
        __svc_valopts "$cmdpath"
        if [[ "$REPLY" == *" $w "* && "\${__svc_words[i+1]}" != "=" ]]; then skip=1; fi
        ;;
      *)
        if [[ -n "$helping" ]]; then
          __svc_subs "$helppath"
          if [[ " $REPLY " == *" $w "* ]]; then helppath="\${helppath:+$helppath }$w"; fi
          continue
        fi
        __svc_subs "$cmdpath"
        if [[ -z "$cmdpath" && "$w" == help ]]; then
          helping=1
        elif [[ " $REPLY " == *" $w "* ]]; then
          cmdpath="\${cmdpath:+$cmdpath }$w"
        else
          nargs=$((nargs + 1))
        fi
        ;;
    esac
  done
}
`;

export function bashScript(tree: CompletionTree, version: string): string {
  const f = flatten(tree);
  return `${header('bash', version, [
    'This shell only:  source <(svc completion bash)',
    'Every new shell:  svc completion bash > ~/.local/share/bash-completion/completions/svc',
    "              or: echo 'source <(svc completion bash)' >> ~/.bashrc",
  ])}
${shData(f, tree)}
${SH_WALK}
__svc_reply() {
  case "$__svc_kind" in
    words) COMPREPLY=($(compgen -W "$REPLY" -- "$cur")) ;;
    files)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      ;;
    profiles) COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" auth list --names 2>/dev/null)" -- "$cur")) ;;
    *) COMPREPLY=() ;;
  esac
}

_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" opt='' cmdpath='' helping='' helppath='' skip='' nargs=0 REPLY __svc_kind
  local -a __svc_words=("\${COMP_WORDS[@]}")
  local __svc_cword=$COMP_CWORD
  COMPREPLY=()
  # bash splits --opt=value at "=": the value of --opt is being typed.
  if [[ "$cur" == "=" ]]; then
    opt="\${COMP_WORDS[COMP_CWORD-1]}"
    cur=''
  elif [[ $COMP_CWORD -ge 2 && "\${COMP_WORDS[COMP_CWORD-1]}" == "=" ]]; then
    opt="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  __svc_walk 1
  if [[ -z "$opt" && -n "$skip" ]]; then opt="\${COMP_WORDS[COMP_CWORD-1]}"; fi
  if [[ -n "$opt" ]]; then
    __svc_value "$cmdpath" "$opt"
    __svc_reply
  elif [[ "$cur" == -* ]]; then
    __svc_opts "$cmdpath"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  elif [[ -n "$helping" ]]; then
    __svc_subs "$helppath"
    if [[ -z "$helppath" ]]; then REPLY="$REPLY $__svc_help_topics"; fi
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  else
    __svc_subs "$cmdpath"
    if [[ -n "$REPLY" ]]; then
      COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    else
      __svc_value "$cmdpath" "#$nargs"
      __svc_reply
    fi
  fi
  return 0
}
complete -F _svc svc
`;
}

export function zshScript(tree: CompletionTree, version: string): string {
  const f = flatten(tree);
  const esc = (s: string) => s.replace(/:/g, '\\:');
  const subdesc = f.nodes
    .filter((n) => n.commands.length > 0)
    .map((n) => `    ${sq(key(n))}) reply=(${n.commands.map((c) => sq(`${esc(c.name)}:${short(c.description)}`)).join(' ')}) ;;`);
  const optdesc = f.nodes.map(
    (n) =>
      `    ${sq(key(n))}) reply=(${f
        .optionsAt(n)
        .map((o) => sq(`${esc(o.names[0] as string)}:${short(o.description)}`))
        .join(' ')}) ;;`,
  );
  return `#compdef svc
${header('zsh', version, [
  'This shell only:  source <(svc completion zsh)',
  'Every new shell:  mkdir -p ~/.zfunc && svc completion zsh > ~/.zfunc/_svc',
  '                  and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)',
  "              or: echo 'source <(svc completion zsh)' >> ~/.zshrc   (after compinit)",
])}
${shData(f, tree)}
__svc_subdesc() {
  case "$1" in
${subdesc.join('\n')}
    *) reply=() ;;
  esac
}
__svc_optdesc() {
  case "$1" in
${optdesc.join('\n')}
    *) reply=() ;;
  esac
}
${SH_WALK}
__svc_zreply() {
  local -a list
  case "$__svc_kind" in
    words) list=(\${=REPLY}); compadd -a list ;;
    files) _files ;;
    profiles) list=(\${(f)"$(\${words[1]} auth list --names 2>/dev/null)"}); compadd -a list ;;
  esac
}

_svc() {
  local cur="\${words[CURRENT]}" opt='' cmdpath='' helping='' helppath='' skip='' nargs=0 REPLY __svc_kind
  local -a reply __svc_words
  __svc_words=("\${words[@]}")
  local __svc_cword=$CURRENT
  __svc_walk 2
  if [[ -n "$skip" ]]; then
    opt="\${words[CURRENT-1]}"
  elif [[ "$cur" == --*=* ]]; then
    opt="\${cur%%=*}"
    compset -P '*='
  fi
  if [[ -n "$opt" ]]; then
    __svc_value "$cmdpath" "$opt"
    __svc_zreply
  elif [[ "$cur" == -* ]]; then
    __svc_optdesc "$cmdpath"
    _describe -t options 'option' reply
  elif [[ -n "$helping" ]]; then
    __svc_subdesc "$helppath"
    if [[ -z "$helppath" ]]; then reply+=(\${=__svc_help_topics}); fi
    _describe -t commands 'command or topic' reply
  else
    __svc_subdesc "$cmdpath"
    if (( \${#reply} )); then
      _describe -t commands 'command' reply
    else
      __svc_value "$cmdpath" "#$nargs"
      __svc_zreply
    fi
  fi
}

if [[ "\${funcstack[1]}" == _svc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

export function completionScript(shell: Shell, tree: CompletionTree, version: string): string {
  if (shell === 'zsh') return zshScript(tree, version);
  if (shell === 'fish') return fishScript(tree, version);
  return bashScript(tree, version);
}
