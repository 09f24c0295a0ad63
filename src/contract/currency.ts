/**
 * ISO 4217 alphabetic codes in current use, with their minor units (number of decimals).
 * Kept as a static table rather than derived from Intl so that the sandbox and the client
 * agree on every machine, whatever ICU data Node was built with.
 */

const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DECIMALS = 'CLF UYW';
const TWO_DECIMALS =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
  'CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL ' +
  'GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD ' +
  'LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN ' +
  'PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL ' +
  'THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG ZWL';

const MINOR_UNITS = new Map<string, number>();
for (const [list, digits] of [
  [ZERO_DECIMALS, 0],
  [TWO_DECIMALS, 2],
  [THREE_DECIMALS, 3],
  [FOUR_DECIMALS, 4],
] as const) {
  for (const code of list.split(' ')) MINOR_UNITS.set(code, digits);
}

/** Upper-cases and checks a currency code; undefined when it is not a known ISO 4217 code. */
export function normalizeCurrency(value: string): string | undefined {
  const code = value.trim().toUpperCase();
  return MINOR_UNITS.has(code) ? code : undefined;
}

/** Number of decimals of a (normalised) currency code; 2 when unknown. */
export function currencyDecimals(code: string): number {
  return MINOR_UNITS.get(code.toUpperCase()) ?? 2;
}

export function isCurrency(value: string): boolean {
  return MINOR_UNITS.has(value.toUpperCase());
}
