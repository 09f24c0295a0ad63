import { Argument, type Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { type ActionFactory, examples } from '../loader.js';

/**
 * `svc completion bash|zsh|fish`. The script is written from the whole tree, so `program` is
 * handed to the verb with its module (the verb cannot import program.ts: that would be a circle).
 */
export function defineCompletion(program: Command, action: ActionFactory): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish (commands, flags, values, profiles)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish'] as const))
    .addHelpText(
      'after',
      examples(
        [
          'source <(svc completion bash)                                # bash, this shell only',
          'svc completion bash > ~/.local/share/bash-completion/completions/svc',
          'mkdir -p ~/.zfunc && svc completion zsh > ~/.zfunc/_svc    # zsh: fpath=(~/.zfunc $fpath) in ~/.zshrc',
          'svc completion fish > ~/.config/fish/completions/svc.fish',
        ],
        'The script holds the commands, flags and fixed values (consent values, formats, presets); only\nprofile names are looked up as you press Tab (`svc auth list --names`). Write it again after\nupgrading svc.',
      ),
    )
    .action(
      action(async () => {
        const verb = await import('./completion.js');
        return {
          run: (args: ['bash' | 'zsh' | 'fish'], opts: Record<never, never>, ctx) =>
            verb.run(args, opts, ctx, program as CommandUnknownOpts),
        };
      }),
    );
}
