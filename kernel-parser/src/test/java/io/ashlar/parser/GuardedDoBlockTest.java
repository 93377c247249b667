package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GuardedDoBlockTest {

    @Test
    void theBlocksMigrationToolsWrite() {
        // Drizzle
        assertTrue(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN\n CREATE TYPE \"public\".\"status\" AS ENUM('new', 'done');\n"
                + "EXCEPTION\n WHEN duplicate_object THEN null;\nEND $$;"));
        // Knex, with a language clause and two objects
        assertTrue(GuardedDoBlock.createsObjectsOnly("do language plpgsql $body$ begin create domain positive as int check (value > 0);"
                + " create type pair as (a int, b text); exception when duplicate_object then NULL; end $body$"));
        assertTrue(GuardedDoBlock.createsObjectsOnly("DO 'BEGIN CREATE EXTENSION IF NOT EXISTS citext; EXCEPTION WHEN duplicate_object THEN null; END'"));
    }

    @Test
    void otherBlocksAreNot() {
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE TYPE s AS ENUM ('a'); END $$"), "no handler");
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE TABLE t (id int); EXCEPTION WHEN duplicate_object THEN null; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE TYPE s AS ENUM ('a'); INSERT INTO t VALUES (1);"
                + " EXCEPTION WHEN duplicate_object THEN null; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE SCHEMA s CREATE TABLE t (id int); EXCEPTION WHEN duplicate_object THEN null; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE TYPE s AS ENUM ('a'); EXCEPTION WHEN others THEN null; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO $$ BEGIN CREATE TYPE s AS ENUM ('a'); EXCEPTION WHEN duplicate_object THEN"
                + " DELETE FROM t; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("DO LANGUAGE plperl $$ BEGIN CREATE TYPE s AS ENUM ('a'); EXCEPTION WHEN duplicate_object THEN null; END $$"));
        assertFalse(GuardedDoBlock.createsObjectsOnly("SELECT 1"));
    }
}
