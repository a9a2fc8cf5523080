import { z } from 'zod';
import { CA_SUBDIVISIONS, COUNTRIES, INPUT_COUNTRIES, US_STATES, type Address } from './countries.js';

export { COUNTRIES, INPUT_COUNTRIES, missingAddressFields } from './countries.js';
export type { Address, Country } from './countries.js';

/**
 * Billing addresses and tax ids as Polar validates them (`kit/address.py`, `kit/tax.py`). Shared with checkouts,
 * which take the same address and tax id from the buyer.
 */

// Empty strings mean "not given", as Polar's EmptyStrToNone; NUL characters are refused as there.
const addressLine = z
  .string()
  .max(256)
  .refine((value) => !value.includes('\u0000'), { message: 'String must not contain NUL characters' })
  .nullable()
  .optional()
  .transform((value) => (value ? value : null));

export const addressOutput = z
  .object({
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    postal_code: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.enum(COUNTRIES),
  })
  .meta({ id: 'Address' });

export const addressInput = z
  .strictObject({
    line1: addressLine,
    line2: addressLine,
    postal_code: addressLine,
    city: addressLine,
    state: addressLine,
    country: z.preprocess(
      (value) => (typeof value === 'string' ? value.toUpperCase() : value),
      z.enum(INPUT_COUNTRIES),
    ),
  })
  .transform((address, ctx): Address => {
    let state = address.state;
    // US and Canadian states are stored ISO 3166-2 style (`US-NY`), whichever form was sent.
    if (state && (address.country === 'US' || address.country === 'CA')) {
      state = state.toUpperCase();
      if (!state.startsWith(`${address.country}-`)) state = `${address.country}-${state}`;
      const known = address.country === 'US' ? US_STATES : CA_SUBDIVISIONS;
      if (!known.has(state.slice(3))) {
        ctx.addIssue({
          code: 'custom',
          path: ['state'],
          message: address.country === 'US' ? 'Invalid US state' : 'Invalid CA subdivision',
        });
        return z.NEVER;
      }
    }
    return {
      line1: address.line1,
      line2: address.line2,
      postal_code: address.postal_code,
      city: address.city,
      state,
      country: address.country,
    };
  })
  .meta({ id: 'AddressInput' });

export const TAX_ID_FORMATS = [
  'ad_nrt',
  'ae_trn',
  'ar_cuit',
  'au_abn',
  'au_arn',
  'bg_uic',
  'bh_vat',
  'bo_tin',
  'br_cnpj',
  'br_cpf',
  'ca_bn',
  'ca_gst_hst',
  'ca_pst_bc',
  'ca_pst_mb',
  'ca_pst_sk',
  'ca_qst',
  'ch_uid',
  'ch_vat',
  'cl_tin',
  'cn_tin',
  'co_nit',
  'cr_tin',
  'de_stn',
  'do_rcn',
  'ec_ruc',
  'eg_tin',
  'es_cif',
  'eu_oss_vat',
  'eu_vat',
  'gb_vat',
  'ge_vat',
  'hk_br',
  'hr_oib',
  'hu_tin',
  'id_npwp',
  'il_vat',
  'in_gst',
  'is_vat',
  'jp_cn',
  'jp_rn',
  'jp_trn',
  'ke_pin',
  'kr_brn',
  'kz_bin',
  'li_uid',
  'mk_vat',
  'mx_rfc',
  'my_frp',
  'my_itn',
  'my_sst',
  'ng_tin',
  'no_vat',
  'no_voec',
  'nz_gst',
  'om_vat',
  'pe_ruc',
  'ph_tin',
  'ro_tin',
  'rs_pib',
  'ru_inn',
  'ru_kpp',
  'sa_vat',
  'sg_gst',
  'sg_uen',
  'si_tin',
  'sv_nit',
  'th_vat',
  'tr_tin',
  'tw_vat',
  'ua_vat',
  'us_ein',
  'uy_ruc',
  've_rif',
  'vn_tin',
  'za_vat',
  'mu_tan',
] as const;
export type TaxIdFormat = (typeof TAX_ID_FORMATS)[number];
export type TaxId = [string, TaxIdFormat];

export const taxIdOutput = z.tuple([z.string(), z.enum(TAX_ID_FORMATS)]).meta({ id: 'TaxID' });

const EU_VAT_COUNTRIES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

// The shape of each EU VAT number after its country prefix (the VIES formats).
const EU_VAT_BODY: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^\d{7}[A-W][A-I]?$|^\d[A-Z+*]\d{5}[A-W]$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SE: /^\d{10}01$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
};

// Formats checked by shape. Formats missing here accept any 5 to 20 letters and digits; we do not run
// python-stdnum's checksums, so a well-shaped but wrong number is accepted (Stripe would catch it at payment time).
const SHAPES: Partial<Record<TaxIdFormat, RegExp>> = {
  us_ein: /^\d{9}$/,
  gb_vat: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  ca_bn: /^\d{9}$/,
  ca_gst_hst: /^\d{9}RT\d{4}$/,
  ca_qst: /^\d{10}TQ\d{4}$/,
  au_abn: /^\d{11}$/,
  au_arn: /^\d{12}$/,
  ch_uid: /^CHE\d{9}$/,
  ch_vat: /^CHE\d{9}(MWST|TVA|IVA)$/,
  no_vat: /^(NO)?\d{9}(MVA)?$/,
  in_gst: /^\d{2}[A-Z]{5}\d{4}[A-Z][A-Z0-9]Z[A-Z0-9]$/,
  jp_cn: /^\d{13}$/,
  jp_trn: /^T\d{13}$/,
  br_cnpj: /^\d{14}$/,
  br_cpf: /^\d{11}$/,
  mx_rfc: /^[A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}$/,
  de_stn: /^\d{10,11}$/,
  es_cif: /^[A-Z]\d{7}[A-Z0-9]$/,
  hr_oib: /^\d{11}$/,
  hu_tin: /^\d{8}-?\d-?\d{2}$/,
  ro_tin: /^\d{13}$/,
  si_tin: /^\d{8}$/,
  bg_uic: /^\d{9}$|^\d{13}$/,
  nz_gst: /^\d{8,9}$/,
  sg_uen: /^\d{8}[A-Z]$|^\d{9}[A-Z]$|^[TSR]\d{2}[A-Z]{2}\d{4}[A-Z]$/,
  za_vat: /^4\d{9}$/,
  kr_brn: /^\d{10}$/,
};

const COUNTRY_FORMATS: Record<string, TaxIdFormat[]> = {
  AD: ['ad_nrt'],
  AE: ['ae_trn'],
  AR: ['ar_cuit'],
  AU: ['au_abn', 'au_arn'],
  BG: ['bg_uic', 'eu_vat'],
  BH: ['bh_vat'],
  BO: ['bo_tin'],
  BR: ['br_cnpj', 'br_cpf'],
  CA: ['ca_gst_hst', 'ca_pst_bc', 'ca_pst_mb', 'ca_pst_sk', 'ca_qst', 'ca_bn'],
  CH: ['ch_uid', 'ch_vat'],
  CL: ['cl_tin'],
  CN: ['cn_tin'],
  CO: ['co_nit'],
  CR: ['cr_tin'],
  DE: ['de_stn', 'eu_vat'],
  DO: ['do_rcn'],
  EC: ['ec_ruc'],
  EG: ['eg_tin'],
  ES: ['es_cif', 'eu_vat'],
  GB: ['gb_vat'],
  GE: ['ge_vat'],
  HK: ['hk_br'],
  HR: ['hr_oib', 'eu_vat'],
  HU: ['hu_tin', 'eu_vat'],
  ID: ['id_npwp'],
  IL: ['il_vat'],
  IN: ['in_gst'],
  IS: ['is_vat'],
  JP: ['jp_cn', 'jp_rn', 'jp_trn'],
  KE: ['ke_pin'],
  KR: ['kr_brn'],
  KZ: ['kz_bin'],
  LI: ['li_uid'],
  MX: ['mx_rfc'],
  MY: ['my_frp', 'my_itn', 'my_sst'],
  NG: ['ng_tin'],
  NO: ['no_vat', 'no_voec'],
  NZ: ['nz_gst'],
  OM: ['om_vat'],
  PE: ['pe_ruc'],
  PH: ['ph_tin'],
  RO: ['ro_tin', 'eu_vat'],
  RS: ['rs_pib'],
  SA: ['sa_vat'],
  SG: ['sg_gst', 'sg_uen'],
  SI: ['si_tin', 'eu_vat'],
  SV: ['sv_nit'],
  TH: ['th_vat'],
  TR: ['tr_tin'],
  TW: ['tw_vat'],
  UA: ['ua_vat'],
  US: ['us_ein'],
  UY: ['uy_ruc'],
  VE: ['ve_rif'],
  VN: ['vn_tin'],
  ZA: ['za_vat'],
};
for (const country of EU_VAT_COUNTRIES) COUNTRY_FORMATS[country] ??= ['eu_vat'];

function matches(format: TaxIdFormat, number: string, country: string): boolean {
  if (format === 'eu_vat') {
    const prefix = country === 'GR' ? 'EL' : country;
    const body = number.startsWith(prefix) ? number.slice(prefix.length) : null;
    return body !== null && (EU_VAT_BODY[prefix]?.test(body) ?? false);
  }
  const shape = SHAPES[format];
  return shape ? shape.test(number) : /^[A-Z0-9]{5,20}$/.test(number);
}

/**
 * The tax id as `[number, format]` for a customer in `country`, or null when it fits none of the country's formats
 * (Polar's `validate_tax_id`: the first format that accepts the number wins; separators are dropped).
 */
export function validateTaxId(value: string, country: string): TaxId | null {
  const number = value.toUpperCase().replace(/[\s.\-/]/g, '');
  for (const format of COUNTRY_FORMATS[country] ?? []) {
    if (matches(format, number, country)) return [number, format];
  }
  return null;
}
