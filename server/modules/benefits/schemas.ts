// Wire schemas for Polar's Benefit: create and update bodies for the six supported types, the list
// query, and the serializer. Types Polar has but till does not support yet (feature_flag,
// slack_shared_channel) are refused with a 422 on `type`.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, timestamped } from "../../lib/wire.ts";
import {
  customProperties,
  discordProperties,
  downloadablesProperties,
  githubRepositoryProperties,
  licenseKeysProperties,
  meterCreditProperties,
} from "./properties.ts";
import type { benefits } from "../../../db/schema/index.ts";

/** A benefit row as stored. */
export type BenefitRow = typeof benefits.$inferSelect;

export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "github_repository",
  "downloadables",
  "license_keys",
  "meter_credit",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];
const VISIBILITY = z.enum(["draft", "private", "public"]);
const description = z.string().min(3).max(42);

const createBase = {
  description,
  organization_id: z.uuid().nullish(),
  visibility: VISIBILITY.nullish(),
  metadata: metadataInput.optional(),
};
export const benefitCreate = z.discriminatedUnion("type", [
  z.object({ type: z.literal("custom"), ...createBase, properties: customProperties }),
  z.object({ type: z.literal("discord"), ...createBase, properties: discordProperties }),
  z.object({
    type: z.literal("github_repository"),
    ...createBase,
    properties: githubRepositoryProperties,
  }),
  z.object({
    type: z.literal("downloadables"),
    ...createBase,
    properties: downloadablesProperties,
  }),
  z.object({ type: z.literal("license_keys"), ...createBase, properties: licenseKeysProperties }),
  z.object({ type: z.literal("meter_credit"), ...createBase, properties: meterCreditProperties }),
]);
export type BenefitCreate = z.output<typeof benefitCreate>;

const updateBase = {
  description: description.nullish(),
  visibility: VISIBILITY.nullish(),
  metadata: metadataInput.optional(),
};
export const benefitUpdate = z.discriminatedUnion("type", [
  z.object({ type: z.literal("custom"), ...updateBase, properties: customProperties.nullish() }),
  z.object({ type: z.literal("discord"), ...updateBase, properties: discordProperties.nullish() }),
  z.object({
    type: z.literal("github_repository"),
    ...updateBase,
    properties: githubRepositoryProperties.nullish(),
  }),
  z.object({
    type: z.literal("downloadables"),
    ...updateBase,
    properties: downloadablesProperties.nullish(),
  }),
  z.object({
    type: z.literal("license_keys"),
    ...updateBase,
    properties: licenseKeysProperties.nullish(),
  }),
  z.object({
    type: z.literal("meter_credit"),
    ...updateBase,
    properties: meterCreditProperties.nullish(),
  }),
]);
export type BenefitUpdate = z.output<typeof benefitUpdate>;

export const BENEFIT_SORTS = ["created_at", "description", "type", "user_order"] as const;
export const benefitListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  type: queryList(z.enum(BENEFIT_TYPES)).optional(),
  id: queryList(z.uuid()).optional(),
  exclude_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  sorting: sortingSchema(BENEFIT_SORTS, ["-created_at"]),
});
export type BenefitListQuery = z.output<typeof benefitListQuery>;

export const benefitSchema = z
  .object({
    ...timestamped,
    type: z.enum(BENEFIT_TYPES),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    is_deleted: z.boolean(),
    organization_id: z.uuid(),
    metadata: metadataOut,
    visibility: VISIBILITY,
    properties: z.record(z.string(), z.unknown()),
    visibility_configurable: z.boolean(),
  })
  .meta({ id: "Benefit" });
export type BenefitOut = z.output<typeof benefitSchema>;

export function benefitOut(row: BenefitRow): BenefitOut {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    type: row.type as BenefitType,
    description: row.description,
    // Every benefit till supports can be attached to products and deleted by its seller.
    selectable: row.deletedAt === null,
    deletable: row.deletedAt === null,
    is_deleted: row.deletedAt !== null,
    organization_id: row.organizationId,
    metadata: row.metadata,
    visibility: row.visibility as "draft" | "private" | "public",
    properties: row.properties,
    visibility_configurable: true,
  };
}
