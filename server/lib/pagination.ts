// Polar's pagination: ?page=1&limit=10 in, {items, pagination: {total_count, max_page}} out.
import { z } from "zod";

export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

export type Pagination = z.output<typeof paginationQuery>;

export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
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
