/**
 * The scopes of `svc auth login`: --scopes checked, and the advice after a login whose token
 * lacks a scope some command of svc needs.
 */
import { isScope, SCOPES, type Scope } from '../../contract/scopes.js';
import { UsageError } from '../../errors.js';
import { parseScopeList } from '../../store/credentials.js';

/**
 * Scopes a command of svc needs that this login did not ask for (an explicit list without them):
 * the token lacks them because of the login, not because of the application.
 */
export function scopesNotRequested(requested: string[] | undefined, granted: string[] | null): string[] {
  if (requested === undefined) return [];
  return SCOPES.filter((s) => !requested.includes(s) && !(granted ?? []).includes(s));
}

/**
 * What the token cannot do, and the fix by cause: a scope not requested needs a login asking for
 * it; with nothing requested (everything the application has), a scope missing from the grant
 * needs enabling on the application. (Requested but not granted: the client already warns.)
 */
export function scopeAdvice(requested: string[] | undefined, granted: string[] | null): string[] {
  const lines: string[] = [];
  const unrequested = scopesNotRequested(requested, granted);
  if (unrequested.length > 0) {
    const all = [...(requested ?? []), ...unrequested];
    lines.push(
      `not requested: ${unrequested.join(' ')} (${scopeUses(unrequested)} ${them(unrequested)})`,
      `to get ${them(unrequested)}: svc auth login --scopes "${SCOPES.filter((s) => all.includes(s)).join(' ')}"`,
    );
  }
  const lacking = requested === undefined && granted !== null ? SCOPES.filter((s) => !granted.includes(s)) : [];
  if (lacking.length > 0) {
    lines.push(
      `the application does not grant ${lacking.join(' ')} (${scopeUses(lacking)} ${them(lacking)}): enable ${them(lacking)} on the application, then svc auth login`,
    );
  }
  return lines;
}

/** "contacts list and get; events send need": the commands the scopes serve, as a sentence's subject. */
function scopeUses(list: string[]): string {
  return `${list.map((s) => SCOPE_USES[s as Scope] ?? s).join('; ')} need${list.length > 1 ? '' : 's'}`;
}

function them(list: string[]): string {
  return list.length > 1 ? 'them' : 'it';
}

/** Which commands need each scope, for the advice after a login that lacks one. */
const SCOPE_USES: Record<Scope, string> = {
  contacts_read: 'contacts list and get',
  contacts_write: 'contacts create, patch, import, unsubscribe and delete',
  events_write: 'events send',
  orders_write: 'orders upsert and import',
};

export function checkScopes(value: string): string[] | undefined {
  const list = parseScopeList(value);
  const unknown = (list ?? []).filter((s) => !isScope(s));
  if (unknown.length) {
    throw new UsageError(`unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, `scopes are: ${SCOPES.join(' ')}`);
  }
  return list;
}
