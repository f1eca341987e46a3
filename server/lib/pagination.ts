// Polar's pagination: ?page=1&limit=10 in, {items, pagination: {total_count, max_page}} out.
import { z } from "zod";
import { queryInt } from "./query.ts";

export const paginationQuery = z.object({
  page: queryInt({ min: 1 }).default(1),
  limit: queryInt({ min: 1, max: 100 }).default(10),
});

export type Pagination = z.output<typeof paginationQuery>;

export const paginationOut = z
  .object({ total_count: z.number().int(), max_page: z.number().int() })
  .meta({ id: "Pagination" });

/** Polar's ListResource_<Model>: the schema of one page of `item`. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), pagination: paginationOut });
}

export interface Page<T> {
  items: T[];
  pagination: z.output<typeof paginationOut>;
}

export function pageOf<T>(items: T[], totalCount: number, { limit }: Pagination): Page<T> {
  return {
    items,
    pagination: { total_count: totalCount, max_page: Math.ceil(totalCount / limit) },
  };
}

export function offsetOf({ page, limit }: Pagination): number {
  return (page - 1) * limit;
}
