// Wire schemas for Polar's CustomField (text, number, date, checkbox, select) and its create/update
// bodies. Properties are validated per type; the slug is the key under which answers are stored.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, timestamped } from "../../lib/wire.ts";
import type { customFields } from "../../../db/schema/index.ts";

/** A customfield row as stored. */
export type CustomFieldRow = typeof customFields.$inferSelect;

export const CUSTOM_FIELD_TYPES = ["text", "number", "date", "checkbox", "select"] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

const INT32 = { min: -2147483648, max: 2147483647 };
const int32 = z.number().int().min(INT32.min).max(INT32.max);
const formProps = {
  form_label: z.string().min(1).optional(),
  form_help_text: z.string().min(1).optional(),
  form_placeholder: z.string().min(1).optional(),
};

const textProps = z
  .object({
    ...formProps,
    textarea: z.boolean().optional(),
    min_length: int32.min(0).optional(),
    max_length: int32.min(0).optional(),
  })
  .refine(
    (p) => p.min_length === undefined || p.max_length === undefined || p.min_length <= p.max_length,
    {
      message: "min_length must not be greater than max_length",
      path: ["min_length"],
    },
  );
const rangeProps = z
  .object({ ...formProps, ge: int32.optional(), le: int32.optional() })
  .refine((p) => p.ge === undefined || p.le === undefined || p.ge <= p.le, {
    message: "ge must not be greater than le",
    path: ["ge"],
  });
const checkboxProps = z.object(formProps);
const selectProps = z
  .object({
    ...formProps,
    options: z.array(z.object({ value: z.string().min(1), label: z.string().min(1) })).min(1),
  })
  .refine((p) => new Set(p.options.map((o) => o.value)).size === p.options.length, {
    message: "option values must be unique",
    path: ["options"],
  });

const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9-_]+$/, "must contain only lowercase letters, digits, dashes and underscores");
const name = z.string().min(1).max(200);

const createBase = {
  slug,
  name,
  organization_id: z.uuid().nullish(),
  metadata: metadataInput.optional(),
};
export const customFieldCreate = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), ...createBase, properties: textProps }),
  z.object({ type: z.literal("number"), ...createBase, properties: rangeProps }),
  z.object({ type: z.literal("date"), ...createBase, properties: rangeProps }),
  z.object({ type: z.literal("checkbox"), ...createBase, properties: checkboxProps }),
  z.object({ type: z.literal("select"), ...createBase, properties: selectProps }),
]);
export type CustomFieldCreate = z.output<typeof customFieldCreate>;

const updateBase = {
  slug: slug.nullish(),
  name: name.nullish(),
  metadata: metadataInput.optional(),
};
export const customFieldUpdate = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), ...updateBase, properties: textProps.nullish() }),
  z.object({ type: z.literal("number"), ...updateBase, properties: rangeProps.nullish() }),
  z.object({ type: z.literal("date"), ...updateBase, properties: rangeProps.nullish() }),
  z.object({ type: z.literal("checkbox"), ...updateBase, properties: checkboxProps.nullish() }),
  z.object({ type: z.literal("select"), ...updateBase, properties: selectProps.nullish() }),
]);
export type CustomFieldUpdate = z.output<typeof customFieldUpdate>;

export const CUSTOM_FIELD_SORTS = ["created_at", "slug", "name", "type"] as const;
export const customFieldListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  type: queryList(z.enum(CUSTOM_FIELD_TYPES)).optional(),
  // Polar's default order of custom fields: by slug.
  sorting: sortingSchema(CUSTOM_FIELD_SORTS, ["slug"]),
});
export type CustomFieldListQuery = z.output<typeof customFieldListQuery>;

export const customFieldSchema = z
  .object({
    ...timestamped,
    metadata: metadataOut,
    type: z.enum(CUSTOM_FIELD_TYPES),
    slug: z.string(),
    name: z.string(),
    organization_id: z.uuid(),
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "CustomField" });
export type CustomFieldOut = z.output<typeof customFieldSchema>;

export function customFieldOut(row: CustomFieldRow): CustomFieldOut {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    metadata: row.metadata,
    type: row.type as CustomFieldType,
    slug: row.slug,
    name: row.name,
    organization_id: row.organizationId,
    properties: row.properties,
  };
}
