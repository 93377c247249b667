package io.ashlar.bench.tpcc;

/**
 * The five TPC-C transactions with BenchmarkSQL's default mix (weights in percent: 45/43/4/4/4).
 * Delivery is run as BenchmarkSQL 5.0 runs it: the terminal does the deferred part (its
 * {@code DELIVERY_BG}) itself, at once, on its own connection.
 */
enum TransactionType {
    NEW_ORDER("New-Order", "newOrder"),
    PAYMENT("Payment", "payment"),
    ORDER_STATUS("Order-Status", "orderStatus"),
    DELIVERY("Delivery", "delivery"),
    STOCK_LEVEL("Stock-Level", "stockLevel");

    private static final TransactionType[] VALUES = values();

    private final String displayName;
    private final String key;

    TransactionType(String displayName, String key) {
        this.displayName = displayName;
        this.key = key;
    }

    String displayName() {
        return displayName;
    }

    /** The name in the RESULT line, e.g. {@code newOrder}. */
    String key() {
        return key;
    }

    static TransactionType of(int ordinal) {
        return VALUES[ordinal];
    }

    /**
     * The transaction for a uniform draw {@code percent} in 1 .. 100, in BenchmarkSQL's order:
     * Payment 43, Order-Status 4, Delivery 4, Stock-Level 4, New-Order the remaining 45.
     */
    static TransactionType forDraw(int percent) {
        if (percent <= 43) {
            return PAYMENT;
        }
        if (percent <= 47) {
            return ORDER_STATUS;
        }
        if (percent <= 51) {
            return DELIVERY;
        }
        if (percent <= 55) {
            return STOCK_LEVEL;
        }
        return NEW_ORDER;
    }
}
