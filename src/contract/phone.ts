/**
 * Phone numbers typed by people ("(415) 555-0100", "0044 20 7946 0958") to E.164 with
 * libphonenumber-js. Used by the CLI and the importer; the sandbox only checks the E.164 format.
 */
import { type CountryCode, isSupportedCountry, parsePhoneNumberWithError } from 'libphonenumber-js/max/es6';
import { isE164 } from './formats.js';

export type PhoneResult = { ok: true; e164: string } | { ok: false; message: string };

/** Upper-cases and checks an ISO 3166 alpha-2 country code; undefined when unsupported. */
export function normalizeCountry(value: string | undefined): CountryCode | undefined {
  if (!value) return undefined;
  const cc = value.trim().toUpperCase();
  return isSupportedCountry(cc) ? (cc as CountryCode) : undefined;
}

/**
 * Normalises a phone number to E.164. International prefixes `+` and `00` work without a
 * country; local numbers need `defaultCountry`. Impossible numbers and numbers with an extension
 * (`x123`, `ext. 123`) are refused.
 */
export function normalizePhone(input: string, defaultCountry?: CountryCode): PhoneResult {
  let text = input.trim();
  if (text === '') return { ok: false, message: 'is empty' };
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  try {
    const parsed = parsePhoneNumberWithError(text, defaultCountry ? { defaultCountry } : undefined);
    if (!parsed.isPossible()) return { ok: false, message: `${JSON.stringify(input)} is not a possible phone number` };
    // E.164 has no place for an extension: dropping it would text the switchboard instead.
    if (parsed.ext) {
      return { ok: false, message: `${JSON.stringify(input)} has an extension (x${parsed.ext}), which SMS cannot use; remove it` };
    }
    // Possible to libphonenumber but outside the service's E.164 (8 to 15 digits): refused here,
    // before sending, rather than by the service.
    if (!isE164(parsed.number)) {
      return { ok: false, message: `${JSON.stringify(input)} reads as ${parsed.number}, but the service takes 8 to 15 digits after the +` };
    }
    return { ok: true, e164: parsed.number };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (reason === 'INVALID_COUNTRY' && !defaultCountry) {
      return {
        ok: false,
        message: `${JSON.stringify(input)} has no country code: write it as +<country><number> or give --default-country`,
      };
    }
    return { ok: false, message: `${JSON.stringify(input)} is not a phone number (${reason.toLowerCase().replace(/_/g, ' ')})` };
  }
}
