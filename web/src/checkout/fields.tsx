// Form fields of the checkout page. Each field's message sits under its input and is tied to it by
// aria-describedby, with aria-invalid set, so a screen reader reads the problem with the field.
import type { ReactNode } from "react";
import {
  addressWords,
  countryOptions,
  type CountryOption,
  subdivisionOptions,
} from "./countries.ts";
import type { AddressFieldModes } from "../../../server/lib/billing-address-fields.ts";
import { firstDayAllowed, lastDayAllowed } from "../../../server/lib/date-bounds.ts";
import type { Address, CustomField } from "./types.ts";

export interface FieldA11y {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  help?: string | null | undefined;
  className?: string;
  /** Say the message as it appears: it answers a change made in place, with focus staying put. */
  announce?: boolean;
  children: (a11y: FieldA11y) => ReactNode;
}) {
  const described = [
    props.help ? `${props.id}-help` : null,
    props.error ? `${props.id}-error` : null,
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={`field${props.className ? ` ${props.className}` : ""}`}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children({
        id: props.id,
        ...(props.error ? { "aria-invalid": true as const } : {}),
        ...(described ? { "aria-describedby": described } : {}),
      })}
      {props.help ? (
        <p className="help" id={`${props.id}-help`}>
          {props.help}
        </p>
      ) : null}
      {props.error ? (
        <p className="error" id={`${props.id}-error`} role={props.announce ? "alert" : undefined}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

interface BusinessValues {
  business: boolean;
  billingName: string;
  taxId: string;
}

/** "I'm purchasing as a business", and when ticked the business's name and tax ID. */
export function BusinessFields(props: {
  value: BusinessValues;
  errors: Record<string, string>;
  onChange(v: Partial<BusinessValues>): void;
}) {
  const { value } = props;
  return (
    <>
      <div className="field checkbox">
        <input
          id="business"
          name="business"
          type="checkbox"
          checked={value.business}
          onChange={(e) => props.onChange({ business: e.target.checked })}
        />
        <label htmlFor="business">I'm purchasing as a business</label>
      </div>
      {value.business ? (
        <div className="row">
          <Field id="billing-name" label="Business name" error={props.errors["billing-name"]}>
            {(a) => (
              <input
                {...a}
                name="billing-name"
                autoComplete="billing organization"
                maxLength={256}
                value={value.billingName}
                onChange={(e) => props.onChange({ billingName: e.target.value })}
              />
            )}
          </Field>
          <Field id="tax-id" label="Tax ID (optional)" error={props.errors["tax-id"]}>
            {(a) => (
              <input
                {...a}
                name="tax-id"
                maxLength={64}
                value={value.taxId}
                onChange={(e) => props.onChange({ taxId: e.target.value })}
              />
            )}
          </Field>
        </div>
      ) : null}
    </>
  );
}

type AddressKey = keyof AddressFieldModes;

let countries: CountryOption[] | null = null;

/** The billing address in the order the buyer's country writes it, with its words. */
export function AddressFields(props: {
  /** Null when the checkout asks for no address. */
  modes: AddressFieldModes | null;
  value: Partial<Address>;
  errors: Record<string, string>;
  onChange(a: Partial<Address>): void;
}) {
  const { modes, value } = props;
  if (!modes) return null;
  countries ??= countryOptions();
  const words = addressWords(value.country);
  const label = (key: AddressKey, text: string) =>
    modes[key] === "optional" ? `${text} (optional)` : text;
  const shown = (key: AddressKey) => modes[key] !== "disabled";
  const input = (key: AddressKey, text: string, autoComplete: string) =>
    shown(key) ? (
      <Field id={`address-${key}`} label={label(key, text)} error={props.errors[`address-${key}`]}>
        {(a) => (
          <input
            {...a}
            name={key}
            autoComplete={`billing ${autoComplete}`}
            maxLength={200}
            value={(value[key] as string | null | undefined) ?? ""}
            onChange={(e) => props.onChange({ ...value, [key]: e.target.value })}
          />
        )}
      </Field>
    ) : null;
  // The US's and Canada's states are chosen from the list the API accepts; a state saved without
  // its country's prefix ("NY") is shown as the choice it stands for.
  const states = subdivisionOptions(value.country);
  const stateValue =
    value.state && states && !value.state.includes("-")
      ? `${value.country}-${value.state}`
      : (value.state ?? "");
  const stateSelect = (options: CountryOption[]) => (
    <Field
      id="address-state"
      label={label("state", words.state ?? "State")}
      error={props.errors["address-state"]}
    >
      {(a) => (
        <select
          {...a}
          name="state"
          autoComplete="billing address-level1"
          value={stateValue}
          onChange={(e) => props.onChange({ ...value, state: e.target.value || null })}
        >
          <option value="">Choose…</option>
          {options.map((o) => (
            <option key={o.code} value={o.code}>
              {o.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
  return (
    <fieldset className="address">
      <legend>Billing address</legend>
      {shown("country") ? (
        <Field
          id="address-country"
          label={label("country", "Country")}
          error={props.errors["address-country"]}
        >
          {(a) => (
            <select
              {...a}
              name="country"
              autoComplete="billing country"
              value={value.country ?? ""}
              onChange={(e) =>
                props.onChange({
                  ...value,
                  country: e.target.value,
                  // A state chosen from one country's list means nothing in another's.
                  ...(states || subdivisionOptions(e.target.value) ? { state: null } : {}),
                })
              }
            >
              <option value="">Choose…</option>
              {countries?.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {input("line1", "Address", "address-line1")}
      {input("line2", "Apartment, suite, etc.", "address-line2")}
      <div className="row">
        {input("city", "City", "address-level2")}
        {states && shown("state")
          ? stateSelect(states)
          : words.state || value.state
            ? input("state", words.state ?? "State / region", "address-level1")
            : null}
        {input("postal_code", words.postalCode, "postal-code")}
      </div>
    </fieldset>
  );
}

export function CustomFieldInput(props: {
  field: CustomField;
  required: boolean;
  value: string | number | boolean | null | undefined;
  error?: string | undefined;
  onChange(v: string | number | boolean | null): void;
}) {
  const { field } = props;
  const id = `custom-${field.slug}`;
  const label = `${field.properties.form_label ?? field.name}${props.required ? "" : " (optional)"}`;
  const render = (a: FieldA11y): ReactNode => {
    const common = { ...a, name: field.slug };
    switch (field.type) {
      case "checkbox":
        return (
          <input
            {...common}
            type="checkbox"
            checked={Boolean(props.value)}
            onChange={(e) => props.onChange(e.target.checked)}
          />
        );
      case "select":
        return (
          <select
            {...common}
            value={String(props.value ?? "")}
            onChange={(e) => props.onChange(e.target.value || null)}
          >
            <option value="">Choose…</option>
            {(field.properties.options ?? []).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        );
      case "number":
        return (
          <input
            {...common}
            type="number"
            min={field.properties.ge ?? undefined}
            max={field.properties.le ?? undefined}
            value={props.value === null || props.value === undefined ? "" : String(props.value)}
            onChange={(e) => props.onChange(e.target.value === "" ? null : Number(e.target.value))}
          />
        );
      case "date":
        return (
          <input
            {...common}
            type="date"
            // The picker offers only the days the field allows.
            min={
              typeof field.properties.ge === "number"
                ? firstDayAllowed(field.properties.ge)
                : undefined
            }
            max={
              typeof field.properties.le === "number"
                ? lastDayAllowed(field.properties.le)
                : undefined
            }
            value={String(props.value ?? "")}
            onChange={(e) => props.onChange(e.target.value || null)}
          />
        );
      default:
        return field.properties.textarea ? (
          <textarea
            {...common}
            value={String(props.value ?? "")}
            placeholder={field.properties.form_placeholder ?? undefined}
            onChange={(e) => props.onChange(e.target.value)}
          />
        ) : (
          <input
            {...common}
            value={String(props.value ?? "")}
            placeholder={field.properties.form_placeholder ?? undefined}
            onChange={(e) => props.onChange(e.target.value)}
          />
        );
    }
  };
  return (
    <Field
      id={id}
      label={label}
      error={props.error}
      help={field.properties.form_help_text}
      className={field.type === "checkbox" ? "checkbox" : undefined}
    >
      {render}
    </Field>
  );
}
