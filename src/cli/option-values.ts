import { InvalidArgumentError } from 'commander';

// How the CLI reads option values commander hands over as strings.

/** A whole number of at least 1, or commander's usage error. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1');
  return parsed;
}

/** Collects a repeatable option's values in the order given. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
