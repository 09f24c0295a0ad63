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
import type { CompletionNode, CompletionTree, ValueCompletion } from './tree.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A word in single quotes for sh-like shells (bash, zsh). */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A word in single quotes for fish (which escapes \ and ' inside them). */
function fq(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A description on one short line. */
function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 70 ? `${line.slice(0, 69)}…` : line;
}

const key = (n: CompletionNode) => n.path.join(' ');

interface Flat {
  nodes: CompletionNode[];
  root: CompletionNode;
  /** The options usable at a node: its own, then the global ones (the program's). */
  optionsAt(n: CompletionNode): CompletionNode['options'];
  /** (path, option-or-#N, completion) for every value that completes to something. */
  values: Array<{ path: string; what: string; value: Exclude<ValueCompletion, undefined>; global: boolean }>;
}

function flatten(tree: CompletionTree): Flat {
  const root = tree.nodes[0] as CompletionNode;
  const optionsAt = (n: CompletionNode) =>
    n === root
      ? root.options
      : [...n.options, ...root.options.filter((o) => !o.names.includes('--help') && !o.names.includes('--version'))];
  const values: Flat['values'] = [];
  for (const n of tree.nodes) {
    for (const o of n.options) {
      if (!o.value) continue;
      for (const name of o.names) values.push({ path: key(n), what: name, value: o.value, global: n === root });
    }
    n.args.forEach((a, i) => {
      if (a) values.push({ path: key(n), what: `#${i}`, value: a, global: false });
    });
  }
  // Specific cases before the global ones (a shell's case takes the first match).
  values.sort((a, b) => Number(a.global) - Number(b.global));
  return { nodes: tree.nodes, root, optionsAt, values };
}

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

function header(shell: Shell, version: string, install: string[]): string {
  return `# ${shell} completion for svc ${version}, written by \`svc completion ${shell}\` from its commands:
# write it again after upgrading svc.
${install.map((l) => `# ${l}`).join('\n')}
`;
}

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

export function fishScript(tree: CompletionTree, version: string): string {
  const f = flatten(tree);
  const pairs = (items: Array<[string, string]>) => items.map(([n, d]) => `${fq(n)} ${fq(short(d))}`).join(' ');
  const subs = f.nodes
    .filter((n) => n.commands.length > 0)
    .map((n) => `        case ${fq(key(n))}\n            printf '%s\\t%s\\n' ${pairs(n.commands.map((c) => [c.name, c.description]))}`);
  const opts = f.nodes.map(
    (n) =>
      `        case ${fq(key(n))}\n            printf '%s\\t%s\\n' ${pairs(f.optionsAt(n).map((o) => [o.names[0] as string, o.description]))}`,
  );
  const valopts = f.nodes.map(
    (n) =>
      `        case ${fq(key(n))}\n            printf '%s\\n' ${f
        .optionsAt(n)
        .filter((o) => o.takesValue)
        .flatMap((o) => o.names)
        .map(fq)
        .join(' ')}`,
  );
  const values = f.values.map(({ path, what, value, global }) => {
    const pattern = global ? fq(`*|${what}`) : fq(`${path}|${what}`);
    if ('words' in value) return `        case ${pattern}\n            printf 'words\\n'; printf '%s\\n' ${value.words.map(fq).join(' ')}`;
    return `        case ${pattern}\n            printf '${'files' in value ? 'files' : 'profiles'}\\n'`;
  });
  return `${header('fish', version, [
    'This shell only:  svc completion fish | source',
    'Every new shell:  svc completion fish > ~/.config/fish/completions/svc.fish',
  ])}
function __svc_subs
    switch "$argv[1]"
${subs.join('\n')}
    end
end
function __svc_opts
    switch "$argv[1]"
${opts.join('\n')}
    end
end
function __svc_valopts
    switch "$argv[1]"
${valopts.join('\n')}
    end
end
# The kind (words, files, profiles) on the first line, then the words.
function __svc_value
    switch "$argv[1]|$argv[2]"
${values.join('\n')}
    end
end

function __svc_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l helping 0
    set -l helppath ''
    set -l skip 0
    set -l nargs 0
    for w in $tokens[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case '--*=*'
            case '-*'
                if contains -- $w (__svc_valopts "$cmdpath")
                    set skip 1
                end
            case '*'
                if test $helping = 1
                    if contains -- $w (__svc_subs "$helppath" | string replace -r '\\t.*' '')
                        set helppath (string trim -- "$helppath $w")
                    end
                else if test -z "$cmdpath" -a "$w" = help
                    set helping 1
                else if contains -- $w (__svc_subs "$cmdpath" | string replace -r '\\t.*' '')
                    set cmdpath (string trim -- "$cmdpath $w")
                else
                    set nargs (math $nargs + 1)
                end
        end
    end
    set -l opt ''
    set -l prefix ''
    if test $skip = 1
        set opt $tokens[-1]
    else if string match -qr -- '^--[^=]+=' $cur
        set opt (string replace -r -- '=.*' '' $cur)
        set prefix "$opt="
        set cur (string replace -r -- '^[^=]*=' '' $cur)
    end
    set -l what
    if test -n "$opt"
        set what (__svc_value "$cmdpath" $opt)
    else if string match -q -- '-*' $cur
        __svc_opts "$cmdpath"
        return
    else if test $helping = 1
        __svc_subs "$helppath"
        if test -z "$helppath"
            printf '%s\\n' ${tree.helpTopics.map(fq).join(' ')}
        end
        return
    else
        set -l sub (__svc_subs "$cmdpath")
        if test (count $sub) -gt 0
            printf '%s\\n' $sub
            return
        end
        set what (__svc_value "$cmdpath" "#$nargs")
    end
    switch "$what[1]"
        case words
            printf '%s\\n' $prefix$what[2..-1]
        case files
            __fish_complete_path "$cur" | string replace -r '^' "$prefix"
        case profiles
            printf '%s\\n' $prefix($tokens[1] auth list --names 2>/dev/null)
    end
end

complete -c svc -e
complete -c svc -f -a '(__svc_complete)'
`;
}

export function completionScript(shell: Shell, tree: CompletionTree, version: string): string {
  if (shell === 'zsh') return zshScript(tree, version);
  if (shell === 'fish') return fishScript(tree, version);
  return bashScript(tree, version);
}
