import { McpServer, Tool, ToolError } from '@armature/core';
import { PriceCatalogue, type Product } from './price-catalogue.service.js';
import { QuoteLog } from './quote-log.service.js';
import { GetPriceInput, PriceOutput, QuoteInput, ShippingSpeed } from './shop.dto.js';

// Shipping in euro cents, converted like the prices.
const SHIPPING_CENTS: Readonly<Record<ShippingSpeed, number>> = { [ShippingSpeed.Standard]: 490, [ShippingSpeed.Express]: 1290 };

/**
 * A tea shop's price list. The constructor shows both kinds of injection: the catalogue is a
 * typedi singleton, the quote log a request-scoped service built for each call.
 */
@McpServer({ name: 'armature-example-shop', version: '0.1.0' })
export class ShopServer {
  constructor(
    private readonly catalogue: PriceCatalogue,
    private readonly quoteLog: QuoteLog,
  ) {}

  @Tool({
    name: 'get_price',
    description: 'Looks up the unit price of one catalogue item, in the currency asked for.',
    output: () => PriceOutput,
    annotations: { readOnlyHint: true, idempotentHint: true },
  })
  getPrice(input: GetPriceInput): PriceOutput {
    const product = this.product(input.sku);
    return {
      sku: product.sku,
      name: product.name,
      currency: input.currency,
      unitPrice: this.catalogue.convert(product.priceCents, input.currency),
      inStock: product.inStock,
    };
  }

  @Tool({
    name: 'quote_order',
    description: 'Prices a whole order: every line, shipping to the address, and the total, in one currency.',
    annotations: { readOnlyHint: true },
  })
  async quoteOrder(input: QuoteInput) {
    const lines = input.lines.map((line) => {
      const product = this.product(line.sku);
      const unitPrice = this.catalogue.convert(product.priceCents, input.currency);
      return { sku: product.sku, name: product.name, quantity: line.quantity, unitPrice, lineTotal: unitPrice * line.quantity };
    });
    const shippingCost = this.catalogue.convert(SHIPPING_CENTS[input.shipping], input.currency);
    const total = lines.reduce((sum, line) => sum + line.lineTotal, shippingCost);
    await this.quoteLog.quoted(lines.length, total, input.currency);
    return {
      ...(input.reference === undefined ? {} : { reference: input.reference }),
      currency: input.currency,
      shipTo: { country: input.shipTo.country, postcode: input.shipTo.postcode },
      shipping: input.shipping,
      lines,
      shippingCost,
      total,
    };
  }

  private product(sku: string): Product {
    const product = this.catalogue.find(sku);
    // A ToolError is an expected failure: its message goes to the model as an isError result.
    if (!product) throw new ToolError(`No product with SKU "${sku}". Known SKUs: ${this.catalogue.skus().join(', ')}.`);
    return product;
  }
}
