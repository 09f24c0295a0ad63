/** OAuth scopes of the service and the scope each operation needs (spec: "Authentication"). */

export const SCOPES = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes an API token gets when created without an explicit list (sandbox decision). */
export const DEFAULT_API_TOKEN_SCOPES: readonly Scope[] = ['contacts_read'];

export const OPERATION_SCOPES = {
  listContacts: 'contacts_read',
  getContact: 'contacts_read',
  createContact: 'contacts_write',
  patchContact: 'contacts_write',
  unsubscribeContact: 'contacts_write',
  deleteContact: 'contacts_write',
  upsertOrder: 'orders_write',
  sendEvent: 'events_write',
} as const satisfies Record<string, Scope>;

export type Operation = keyof typeof OPERATION_SCOPES;

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Parses a space-separated scope string (the token endpoint's `scope`), dropping empties. */
export function parseScopeString(value: string | undefined | null): string[] {
  if (!value) return [];
  return value.split(/\s+/).filter((s) => s.length > 0);
}
