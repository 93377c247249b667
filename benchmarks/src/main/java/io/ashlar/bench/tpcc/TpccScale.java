package io.ashlar.bench.tpcc;

/**
 * How many rows a TPC-C database holds (TPC-C 5.11, clause 1.2.1 and 4.3.3.1): per warehouse 10
 * districts, per district 3,000 customers and 3,000 orders of which the last 900 are undelivered
 * (a NEW_ORDER row each), and 100,000 items with a STOCK row per warehouse each.
 *
 * <p>{@code scaleDown} divides the item, customer and order counts (not the warehouses nor the
 * districts) so that a test loads a warehouse in seconds. Everything that depends on a count
 * follows it: the NURand ranges, the number of last names used (the first {@link #lastNames()}
 * customers of a district get names 0 .. lastNames-1, so every name a terminal asks for exists)
 * and the first undelivered order (the last 30% of a district's orders, as 900 of 3,000).
 *
 * @param warehouses number of warehouses, numbered 1 .. warehouses
 * @param scaleDown  the divisor, 1 for the real cardinalities
 * @param items      rows of ITEM, and of STOCK per warehouse
 * @param customers  customers per district
 * @param orders     orders loaded per district (one per customer)
 * @param newOrders  undelivered orders loaded per district
 */
record TpccScale(int warehouses, int scaleDown, int items, int customers, int orders, int newOrders) {

    static final int DISTRICTS = 10;
    static final int FULL_ITEMS = 100_000;
    static final int FULL_CUSTOMERS = 3_000;
    static final int MAX_SCALE_DOWN = 300;

    TpccScale {
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be at least 1, got " + warehouses);
        }
    }

    /** The cardinalities for {@code warehouses} divided by {@code scaleDown} (1 .. {@value #MAX_SCALE_DOWN}). */
    static TpccScale of(int warehouses, int scaleDown) {
        if (scaleDown < 1 || scaleDown > MAX_SCALE_DOWN) {
            throw new IllegalArgumentException("--scale-down must be between 1 and " + MAX_SCALE_DOWN + ", got " + scaleDown);
        }
        int customers = FULL_CUSTOMERS / scaleDown;
        return new TpccScale(warehouses, scaleDown, FULL_ITEMS / scaleDown, customers, customers, customers * 3 / 10);
    }

    /** The first order id that has a NEW_ORDER row after the load (2,101 at full scale). */
    int firstNewOrder() {
        return orders - newOrders + 1;
    }

    /** How many distinct last names the load gives out and the terminals ask for (1,000 at full scale). */
    int lastNames() {
        return Math.min(1000, customers);
    }
}
