/**
 * Every consent transition of the spec's table, through the CLI, against the real sandbox:
 * merchant-suppressed → written value; compliance-suppressed → 422 explained (exit 1); welcome
 * SMS recorded in the outbox exactly when the spec says; the phone requirement checked first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { type ContactsFixture, contactsFixture } from './contacts-fixture.js';

let fx: ContactsFixture;
beforeAll(async () => {
  fx = await contactsFixture();
});
afterAll(async () => {
  await fx?.close();
});

const get = (id: string) => fx.json<Contact>(['contacts', 'get', id]);

describe('merchant-suppressed email (lifted by any consent write)', () => {
  it('patch writing an email value: the written value', async () => {
    const c = await fx.create(['--email-consent', 'suppressed']);
    const r = await fx.svc(['contacts', 'patch', c.id, '--email-consent', 'subscribed']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/suppression of contact .* was lifted; email consent is now subscribed/);
    expect(await fx.json<Contact>(['contacts', 'get', c.id])).toMatchObject({ id: c.id, email_consent: 'subscribed' });
  });

  it('patch writing only an SMS value: email becomes never_subscribed, SMS the written value', async () => {
    const c = await fx.create(['--email-consent', 'suppressed', '--phone', fx.phone()]);
    const got = await fx.json<Contact>(['contacts', 'patch', c.id, '--sms-consent', 'single_opt_in']);
    expect(got).toMatchObject({ email_consent: 'never_subscribed', sms_consent: 'single_opt_in' });
  });

  it('create for the email of a merchant-suppressed contact applies the values to it (200)', async () => {
    const c = await fx.create(['--email-consent', 'suppressed']);
    // Without --json, so the notice shows (--json keeps stderr for warnings and errors).
    const r = await fx.svc(['contacts', 'create', '--email', c.email as string, '--email-consent', 'unsubscribed']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/suppression was lifted/);
    expect(await fx.json<Contact>(['contacts', 'get', c.id])).toMatchObject({ id: c.id, email_consent: 'unsubscribed' });
  });

  it('unsubscribe lifts the suppression too', async () => {
    const c = await fx.create(['--email-consent', 'suppressed']);
    expect(await fx.json<Contact>(['contacts', 'unsubscribe', c.id])).toMatchObject({ email_consent: 'unsubscribed' });
  });
});

describe('compliance-suppressed email (every write refused with 422)', () => {
  let c: Contact;
  beforeAll(async () => {
    c = await fx.create(['--phone', fx.phone(), '--first-name', 'Locked']);
    await fx.forceConsent(c.id, { email_consent: 'compliance_suppressed' });
  });

  const explained = /suppressed by the system.*cannot be changed/;

  it('patch, unsubscribe (both ways) and delete exit 1 explaining why; nothing changes', async () => {
    for (const argv of [
      ['contacts', 'patch', c.id, '--first-name', 'Changed'],
      ['contacts', 'patch', c.id, '--email-consent', 'subscribed'],
      ['contacts', 'unsubscribe', c.id],
      ['contacts', 'unsubscribe', c.id, '--legacy'],
      ['contacts', 'delete', c.id, '--yes'],
    ]) {
      const r = await fx.svc(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr, argv.join(' ')).toMatch(explained);
    }
    expect(await get(c.id)).toMatchObject({ first_name: 'Locked', email_consent: 'compliance_suppressed' });
  });

  it('create for its email or phone exits 1 explaining why, with status 422 in --json', async () => {
    const r = await fx.svc(['contacts', 'create', '--email', c.email as string, '--email-consent', 'subscribed']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(explained);
    const j = await fx.svc(['contacts', 'create', '--phone', c.phone as string, '--json']);
    expect(j.code).toBe(1);
    expect((JSON.parse(j.stderr) as { error: { status: number; message: string } }).error).toMatchObject({ status: 422 });
  });
});

describe('welcome SMS (outbox) on a move into SMS subscribed', () => {
  it('create with SMS subscribed sends one and says so', async () => {
    const r = await fx.svc(['contacts', 'create', '--email', fx.email(), '--phone', fx.phone(), '--sms-consent', 'subscribed']);
    expect(r.code, r.stderr).toBe(0);
    const c = { id: /Created contact (ct_\w+)/.exec(r.stderr)?.[1] as string };
    expect(r.stderr).toMatch(/welcome SMS will be sent/);
    expect(await fx.welcomeSms(c.id)).toBe(1);

    // Already subscribed: no second SMS, no message.
    const again = await fx.svc(['contacts', 'patch', c.id, '--sms-consent', 'subscribed']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/welcome/);
    expect(await fx.welcomeSms(c.id)).toBe(1);
  });

  it('create with --no-welcome-sms sends none and says it was suppressed', async () => {
    const r = await fx.svc([
      'contacts',
      'create',
      '--email',
      fx.email(),
      '--phone',
      fx.phone(),
      '--sms-consent',
      'subscribed',
      '--no-welcome-sms',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/welcome SMS was suppressed/);
    expect(await fx.welcomeSms(/Created contact (ct_\w+)/.exec(r.stderr)?.[1] as string)).toBe(0);
  });

  it('patch from each other SMS state sends one; not with --no-welcome-sms', async () => {
    for (const from of ['never_subscribed', 'unsubscribed', 'single_opt_in', 'pending'] as const) {
      for (const suppress of [false, true]) {
        const c = await fx.create(['--phone', fx.phone()]);
        if (from === 'pending') await fx.forceConsent(c.id, { sms_consent: 'pending' });
        else if (from !== 'never_subscribed') await fx.json(['contacts', 'patch', c.id, '--sms-consent', from]);
        expect((await get(c.id)).sms_consent).toBe(from);
        const r = await fx.svc(['contacts', 'patch', c.id, '--sms-consent', 'subscribed', ...(suppress ? ['--no-welcome-sms'] : [])]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(suppress ? /welcome SMS was suppressed/ : /welcome SMS will be sent/);
        expect(await fx.welcomeSms(c.id), `${from} suppress=${suppress}`).toBe(suppress ? 0 : 1);
      }
    }
  });

  it('a merchant-suppressed contact moved into SMS subscribed gets one', async () => {
    const c = await fx.create(['--phone', fx.phone(), '--email-consent', 'suppressed']);
    const got = await fx.json<Contact>(['contacts', 'patch', c.id, '--sms-consent', 'subscribed']);
    expect(got).toMatchObject({ email_consent: 'never_subscribed', sms_consent: 'subscribed' });
    expect(await fx.welcomeSms(c.id)).toBe(1);
  });

  it('create landing on a merchant-suppressed contact (200) reports the SMS from its previous state', async () => {
    const fresh = await fx.create(['--phone', fx.phone(), '--email-consent', 'suppressed']);
    /** `svc contacts create` with the contact's e-mail and phone, SMS subscribed. */
    const createSubscribed = () =>
      fx.svc(['contacts', 'create', '--email', fresh.email as string, '--sms-consent', 'subscribed', '--phone', fresh.phone as string]);
    const r = await createSubscribed();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/welcome SMS will be sent/);
    expect(await fx.welcomeSms(fresh.id)).toBe(1);

    await fx.json(['contacts', 'patch', fresh.id, '--email-consent', 'suppressed']);
    const again = await createSubscribed();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(fresh.id);
    expect(again.stderr).not.toMatch(/welcome/);
    expect(await fx.welcomeSms(fresh.id)).toBe(1);
  });

  it('create --if-exists update into subscribed sends one only when it was not subscribed', async () => {
    const c = await fx.create(['--phone', fx.phone()]);
    const args = [
      'contacts',
      'create',
      '--email',
      c.email as string,
      '--phone',
      c.phone as string,
      '--sms-consent',
      'subscribed',
      '--if-exists',
      'update',
    ];
    const first = await fx.svc(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/welcome SMS will be sent/);
    const second = await fx.svc(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/welcome/);
    expect(await fx.welcomeSms(c.id)).toBe(1);
  });
});

describe('phone requirement of single_opt_in / subscribed', () => {
  it('patch on a contact without a phone exits 2 naming --phone; nothing changes', async () => {
    const c = await fx.create();
    for (const v of ['single_opt_in', 'subscribed']) {
      const r = await fx.svc(['contacts', 'patch', c.id, '--sms-consent', v]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--phone');
    }
    expect((await get(c.id)).sms_consent).toBe('never_subscribed');
  });

  it('patch with --phone in the same write, or on a contact that has one, goes through', async () => {
    const c = await fx.create();
    const got = await fx.json<Contact>([
      'contacts',
      'patch',
      c.id,
      '--sms-consent',
      'single_opt_in',
      '--phone',
      '(415) 555-0142',
      '--default-country',
      'US',
    ]);
    expect(got).toMatchObject({ phone: '+14155550142', sms_consent: 'single_opt_in' });
  });
});
