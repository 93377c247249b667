/**
 * The compiler of ShardingSphere's Groovy-style inline expressions ({@code ${...}},
 * {@code $->{...}}) into small evaluators; no Groovy, no script engine.
 */
package io.ashlar.sharding.inline;
