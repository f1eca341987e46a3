// Form fields of the checkout page; each shows the server's message for it under the input.
import type { ReactNode } from "react";
import type { Address, Checkout, CustomField, FieldMode } from "./types.ts";

export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  help?: string | null | undefined;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.help ? <p className="help">{props.help}</p> : null}
      {props.error ? (
        <p className="error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

const ADDRESS_LABELS: [keyof Address, string][] = [
  ["line1", "Address"],
  ["line2", "Address line 2"],
  ["postal_code", "Postal code"],
  ["city", "City"],
  ["state", "State / region"],
  ["country", "Country (ISO code, e.g. US)"],
];

export function AddressFields(props: {
  modes: Checkout["billing_address_fields"];
  value: Partial<Address>;
  errors: Record<string, string>;
  onChange(a: Partial<Address>): void;
}) {
  const shown = ADDRESS_LABELS.filter(
    ([key]) =>
      (props.modes[key as keyof Checkout["billing_address_fields"]] as FieldMode) !== "disabled",
  );
  if (shown.length === 0) return null;
  return (
    <fieldset>
      <legend>Billing address</legend>
      {shown.map(([key, label]) => {
        const mode = props.modes[key as keyof Checkout["billing_address_fields"]];
        const id = `address-${key}`;
        return (
          <Field
            key={key}
            id={id}
            label={mode === "optional" ? `${label} (optional)` : label}
            error={props.errors[`customer_billing_address.${key}`]}
          >
            <input
              id={id}
              name={key}
              required={mode === "required"}
              maxLength={key === "country" ? 2 : 200}
              value={(props.value[key] as string | undefined) ?? ""}
              onChange={(e) =>
                props.onChange({
                  ...props.value,
                  [key]: key === "country" ? e.target.value.toUpperCase() : e.target.value,
                })
              }
              autoComplete={
                key === "country"
                  ? "country"
                  : key === "postal_code"
                    ? "postal-code"
                    : key === "line1"
                      ? "address-line1"
                      : undefined
              }
            />
          </Field>
        );
      })}
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
  const common = {
    id,
    name: field.slug,
    required: props.required,
    "aria-invalid": Boolean(props.error),
  };
  let input: ReactNode;
  switch (field.type) {
    case "checkbox":
      input = (
        <input
          {...common}
          type="checkbox"
          checked={Boolean(props.value)}
          onChange={(e) => props.onChange(e.target.checked)}
        />
      );
      break;
    case "select":
      input = (
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
      break;
    case "number":
      input = (
        <input
          {...common}
          type="number"
          value={props.value === null || props.value === undefined ? "" : String(props.value)}
          onChange={(e) => props.onChange(e.target.value === "" ? null : Number(e.target.value))}
        />
      );
      break;
    case "date":
      input = (
        <input
          {...common}
          type="date"
          value={String(props.value ?? "")}
          onChange={(e) => props.onChange(e.target.value || null)}
        />
      );
      break;
    default:
      input = field.properties.textarea ? (
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
  return (
    <Field id={id} label={label} error={props.error} help={field.properties.form_help_text}>
      {input}
    </Field>
  );
}

export interface CardValue {
  number: string;
  expiry: string;
  cvc: string;
}

export function CardFields(props: {
  value: CardValue;
  error?: string | undefined;
  onChange(v: CardValue): void;
}) {
  return (
    <fieldset>
      <legend>Card (sandbox: 4242 4242 4242 4242, any future date, any CVC)</legend>
      <Field id="card-number" label="Card number" error={props.error}>
        <input
          id="card-number"
          name="card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          required
          value={props.value.number}
          onChange={(e) => props.onChange({ ...props.value, number: e.target.value })}
          placeholder="4242 4242 4242 4242"
        />
      </Field>
      <div className="row">
        <Field id="card-expiry" label="Expiry (MM/YY)">
          <input
            id="card-expiry"
            name="card-expiry"
            autoComplete="cc-exp"
            required
            value={props.value.expiry}
            onChange={(e) => props.onChange({ ...props.value, expiry: e.target.value })}
            placeholder="12/34"
          />
        </Field>
        <Field id="card-cvc" label="CVC">
          <input
            id="card-cvc"
            name="card-cvc"
            inputMode="numeric"
            autoComplete="cc-csc"
            required
            value={props.value.cvc}
            onChange={(e) => props.onChange({ ...props.value, cvc: e.target.value })}
            placeholder="123"
          />
        </Field>
      </div>
    </fieldset>
  );
}
