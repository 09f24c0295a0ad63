/** The fish completion script (see scripts.ts for how the three walk the command line). */

import { flatten, fq, header, key, short } from './flat.js';
import type { CompletionTree } from './tree.js';

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
