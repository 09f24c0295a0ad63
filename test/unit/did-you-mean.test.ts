/** "Did you mean …?" for mistyped values (issue 30): the closest allowed value, only when close. */
import { describe, expect, it } from 'vitest';
import { EMAIL_CONSENT_VALUES } from '../../src/contract/consent.js';
import { withChoiceSuggestion } from '../../src/program.js';
import { closest, didYouMean, editDistance } from '../../src/util/did-you-mean.js';
import { runCli } from '../helpers/run-cli.js';

describe('closest', () => {
  it('finds the value meant by a typo, a swap, a prefix or another spelling', () => {
    expect(closest('supressed', EMAIL_CONSENT_VALUES)).toBe('suppressed');
    expect(closest('subscirbed', EMAIL_CONSENT_VALUES)).toBe('subscribed');
    expect(closest('never-subscribed', EMAIL_CONSENT_VALUES)).toBe('never_subscribed');
    expect(closest('compliance', EMAIL_CONSENT_VALUES)).toBe('compliance_suppressed');
    expect(closest('jsn', ['table', 'json', 'ndjson', 'csv'])).toBe('json');
  });

  it('suggests nothing for a value close to none', () => {
    expect(closest('xyz', EMAIL_CONSENT_VALUES)).toBeUndefined();
    expect(closest('', EMAIL_CONSENT_VALUES)).toBeUndefined();
    expect(didYouMean('banana', EMAIL_CONSENT_VALUES)).toBe('');
    expect(editDistance('ab', 'ba')).toBe(1);
  });

  it("commander's bad choice gets the suggestion; other messages are left alone", () => {
    expect(
      withChoiceSuggestion("error: option '--format <format>' argument 'jsn' is invalid. Allowed choices are table, json, ndjson, csv.\n"),
    ).toBe(
      "error: option '--format <format>' argument 'jsn' is invalid. Allowed choices are table, json, ndjson, csv. (did you mean \"json\"?)\n",
    );
    expect(withChoiceSuggestion("error: unknown option '--x'\n")).toBe("error: unknown option '--x'\n");
  });
});

describe('in the commands', () => {
  it('--email-consent supressed: exit 2 with did you mean "suppressed", for a filter and a write', async () => {
    const list = await runCli(['contacts', 'list', '--email-consent', 'supressed'], {
      env: { SVC_TOKEN: 'x', SVC_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('invalid --email-consent "supressed" (did you mean "suppressed"?)');
    const create = await runCli(['contacts', 'create', '--email', 'a@example.com', '--email-consent', 'supressed'], {
      env: { SVC_TOKEN: 'x', SVC_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(create.code).toBe(2);
    expect(create.stderr).toContain('(did you mean "suppressed"?)');
    const format = await runCli(['contacts', 'list', '--format', 'jsn']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('(did you mean "json"?)');
  });
});
