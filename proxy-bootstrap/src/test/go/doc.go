// Package drivers holds the Go driver suite (pgx v5) that GoDriversTest runs against Ashlar.
package drivers
