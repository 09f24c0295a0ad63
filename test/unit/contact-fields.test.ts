/**
 * The contact's field list is written once (contract/contact-fields.ts); the TypeBox schemas hold
 * the same names with their types. This keeps them one list: a field added to the schema and not
 * to the list (or the other way round) fails here, and the CLI, the importer and events follow.
 */
import { expect, it } from 'vitest';
import { CONTACT_FIELDS, CONTACT_WRITE_FIELDS } from '../../src/contract/contact-fields.js';
import { EVENT_FIELDS } from '../../src/contract/events.js';
import { ContactCreateSchema, ContactPatchSchema, ContactSchema } from '../../src/contract/schemas.js';
import { CONTACT_CSV_FIELDS } from '../../src/importer/contact-mapping.js';

it('the schemas have exactly the listed fields, in order; the others derive theirs', () => {
  expect(Object.keys(ContactSchema.properties)).toEqual([...CONTACT_FIELDS]);
  expect(Object.keys(ContactCreateSchema.properties)).toEqual([...CONTACT_WRITE_FIELDS]);
  expect(Object.keys(ContactPatchSchema.properties)).toEqual([...CONTACT_WRITE_FIELDS]);
  expect([...CONTACT_CSV_FIELDS]).toEqual([
    ...CONTACT_WRITE_FIELDS.filter((f) => f !== 'send_welcome_sms'),
    'accepts_email_marketing',
    'accepts_sms_marketing',
  ]);
  expect([...EVENT_FIELDS]).toEqual(['event_type', 'email', 'phone', 'contact_id', 'properties', 'occurred_at', 'event_id']);
});
