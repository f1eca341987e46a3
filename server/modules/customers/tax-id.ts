// Tax IDs: Polar takes a string and validates it against the billing address country, answering
// [value, format] with a format from the contract's TaxIDFormat list. A caller may also send the
// [value, format] pair itself; the format must then be one of that list. Patterns check the shape of
// each country's number (not its check digits).
export const TAX_ID_FORMATS = [
  "ad_nrt",
  "ae_trn",
  "ar_cuit",
  "au_abn",
  "au_arn",
  "bg_uic",
  "bh_vat",
  "bo_tin",
  "br_cnpj",
  "br_cpf",
  "ca_bn",
  "ca_gst_hst",
  "ca_pst_bc",
  "ca_pst_mb",
  "ca_pst_sk",
  "ca_qst",
  "ch_uid",
  "ch_vat",
  "cl_tin",
  "cn_tin",
  "co_nit",
  "cr_tin",
  "de_stn",
  "do_rcn",
  "ec_ruc",
  "eg_tin",
  "es_cif",
  "eu_oss_vat",
  "eu_vat",
  "gb_vat",
  "ge_vat",
  "hk_br",
  "hr_oib",
  "hu_tin",
  "id_npwp",
  "il_vat",
  "in_gst",
  "is_vat",
  "jp_cn",
  "jp_rn",
  "jp_trn",
  "ke_pin",
  "kr_brn",
  "kz_bin",
  "li_uid",
  "mk_vat",
  "mx_rfc",
  "my_frp",
  "my_itn",
  "my_sst",
  "ng_tin",
  "no_vat",
  "no_voec",
  "nz_gst",
  "om_vat",
  "pe_ruc",
  "ph_tin",
  "ro_tin",
  "rs_pib",
  "ru_inn",
  "ru_kpp",
  "sa_vat",
  "sg_gst",
  "sg_uen",
  "si_tin",
  "sv_nit",
  "th_vat",
  "tr_tin",
  "tw_vat",
  "ua_vat",
  "us_ein",
  "uy_ruc",
  "ve_rif",
  "vn_tin",
  "za_vat",
  "mu_tan",
] as const;
export type TaxIdFormat = (typeof TAX_ID_FORMATS)[number];

const EU = [
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK",
];

/** Per country: the formats tried in order, each with the shape of a compacted number. */
const BY_COUNTRY: Record<string, [TaxIdFormat, RegExp][]> = {
  US: [["us_ein", /^\d{9}$/]],
  GB: [["gb_vat", /^(GB)?(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/]],
  CA: [
    ["ca_gst_hst", /^\d{9}RT\d{4}$/],
    ["ca_bn", /^\d{9}$/],
    ["ca_qst", /^\d{10}TQ\d{4}$/],
  ],
  AU: [
    ["au_abn", /^\d{11}$/],
    ["au_arn", /^\d{12}$/],
  ],
  CH: [
    ["ch_vat", /^CHE\d{9}(MWST|TVA|IVA)$/],
    ["ch_uid", /^CHE\d{9}$/],
  ],
  NO: [
    ["no_vat", /^(NO)?\d{9}MVA$/],
    ["no_voec", /^\d{7}$/],
  ],
  IN: [["in_gst", /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/]],
  BR: [
    ["br_cnpj", /^\d{14}$/],
    ["br_cpf", /^\d{11}$/],
  ],
  JP: [
    ["jp_trn", /^T\d{13}$/],
    ["jp_cn", /^\d{13}$/],
  ],
  NZ: [["nz_gst", /^\d{8,9}$/]],
  SG: [
    ["sg_gst", /^M\d{8}[A-Z]$/],
    ["sg_uen", /^\d{8,9}[A-Z]$/],
  ],
  ZA: [["za_vat", /^4\d{9}$/]],
  MX: [["mx_rfc", /^[A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}$/]],
  KR: [["kr_brn", /^\d{10}$/]],
  AE: [["ae_trn", /^\d{15}$/]],
  IS: [["is_vat", /^\d{5,6}$/]],
  LI: [["li_uid", /^CHE\d{9}$/]],
  TR: [["tr_tin", /^\d{10}$/]],
  UA: [["ua_vat", /^\d{12}$/]],
};
for (const country of EU) {
  const prefix = country === "GR" ? "EL" : country;
  BY_COUNTRY[country] = [["eu_vat", new RegExp(`^${prefix}[0-9A-Z+*]{8,12}$`)]];
}

export type TaxIdResult = { ok: true; value: [string, TaxIdFormat] } | { ok: false; msg: string };

export function validateTaxId(
  input: string | [string, string],
  country: string | null,
): TaxIdResult {
  if (Array.isArray(input)) {
    const [value, format] = input;
    if (!(TAX_ID_FORMATS as readonly string[]).includes(format))
      return { ok: false, msg: `Unknown tax ID format ${JSON.stringify(format)}.` };
    if (!value.trim()) return { ok: false, msg: "The tax ID is empty." };
    return { ok: true, value: [value.trim(), format as TaxIdFormat] };
  }
  if (!country)
    return {
      ok: false,
      msg: "A billing address with a country is required to validate the tax ID.",
    };
  const compact = input.replace(/[\s.\-/]/g, "").toUpperCase();
  const candidates = BY_COUNTRY[country];
  if (!candidates) return { ok: false, msg: `Tax IDs from ${country} are not supported.` };
  for (const [format, pattern] of candidates) {
    if (pattern.test(compact)) return { ok: true, value: [compact, format] };
  }
  return { ok: false, msg: `Invalid tax ID for ${country}.` };
}
