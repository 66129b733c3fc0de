import { Service } from 'typedi';

/** Currencies a price can be quoted in. */
export enum Currency {
  EUR = 'EUR',
  USD = 'USD',
  GBP = 'GBP',
}

export interface Product {
  readonly sku: string;
  readonly name: string;
  /** Unit price in euro cents: amounts stay integers, so no rounding drifts between calls. */
  readonly priceCents: number;
  readonly inStock: boolean;
}

// Fixed rates keep the example deterministic (and its tests exact).
const RATES_FROM_EUR: Readonly<Record<Currency, number>> = { [Currency.EUR]: 1, [Currency.USD]: 1.1, [Currency.GBP]: 0.85 };

const PRODUCTS: readonly Product[] = [
  { sku: 'TEA-001', name: 'Sencha green tea, 100 g', priceCents: 850, inStock: true },
  { sku: 'TEA-002', name: 'Assam black tea, 250 g', priceCents: 1200, inStock: true },
  { sku: 'MUG-001', name: 'Stoneware mug', priceCents: 1450, inStock: false },
  { sku: 'POT-001', name: 'Cast-iron teapot', priceCents: 4900, inStock: true },
];

/**
 * The shop's price list. A typedi singleton: built once, shared by every call, and injected into
 * `ShopServer`'s constructor. A real app would load it from a database at start-up.
 */
@Service()
export class PriceCatalogue {
  private readonly products = new Map(PRODUCTS.map((product) => [product.sku, product]));

  find(sku: string): Product | undefined {
    return this.products.get(sku);
  }

  skus(): string[] {
    return [...this.products.keys()];
  }

  /** Converts euro cents to the minor unit of `currency`, rounded to the nearest unit. */
  convert(euroCents: number, currency: Currency): number {
    return Math.round(euroCents * RATES_FROM_EUR[currency]);
  }
}
