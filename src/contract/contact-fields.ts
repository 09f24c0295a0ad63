/**
 * The contact's fields, written once. The TypeBox schemas of contract/schemas.ts (Contact,
 * ContactCreate, ContactPatch) hold the same names with their types, and
 * test/unit/contact-fields.test.ts checks they match, name for name and in order; everything else
 * derives its list from here: the CLI's columns and --fields (commands/contacts/shared.ts), the
 * contacts importer's CSV fields (importer/contact-mapping.ts), the write validation
 * (contacts.ts) and an event's contact identity (events.ts). Plain names, not the schemas, so
 * that the CLI never loads TypeBox (its start-up; only the sandbox bundle has it).
 */

/** Every field of the contact object, in its order. */
export const CONTACT_FIELDS = [
  'id',
  'email',
  'phone',
  'first_name',
  'last_name',
  'email_consent',
  'sms_consent',
  'created_at',
  'updated_at',
  'orders_count',
  'total_spent',
  'last_order_at',
] as const;
export type ContactFieldName = (typeof CONTACT_FIELDS)[number];

/** The fields only the service sets. */
const SERVICE_FIELDS = ['id', 'created_at', 'updated_at', 'orders_count', 'total_spent', 'last_order_at'] as const;
type ServiceField = (typeof SERVICE_FIELDS)[number];
export type WritableContactField = Exclude<ContactFieldName, ServiceField>;

/** The contact's own fields a write may set, in the contact's order. */
export const WRITABLE_CONTACT_FIELDS: readonly WritableContactField[] = CONTACT_FIELDS.filter(
  (f): f is WritableContactField => !(SERVICE_FIELDS as readonly string[]).includes(f),
);

/** The fields of a contact write (POST/PATCH /v1/contacts): the writable ones, and the write-only flag. */
export const CONTACT_WRITE_FIELDS: readonly (WritableContactField | 'send_welcome_sms')[] = [
  ...WRITABLE_CONTACT_FIELDS,
  'send_welcome_sms',
];

/** The fields that find one contact (each is unique), as an event names its contact beside `contact_id`. */
export const CONTACT_KEY_FIELDS = ['email', 'phone'] as const satisfies readonly WritableContactField[];
