package io.ashlar.rewrite.template;

import java.util.function.Consumer;

/**
 * A change to the user's text: the characters {@code [start, end)} are replaced by what
 * {@code replacement} writes ({@code start == end} inserts). Edits of one template never
 * overlap; two insertions at the same offset keep the order they were made in.
 *
 * @param start       first replaced character
 * @param end         just past the last replaced character
 * @param replacement writes the new text into the builder
 */
public record Edit(int start, int end, Consumer<TemplateBuilder> replacement) {

    public Edit {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad edit range [" + start + ", " + end + ")");
        }
    }

    /** An insertion of fixed text at {@code position}. */
    public static Edit insert(int position, String text) {
        return new Edit(position, position, builder -> builder.text(text));
    }

    /** The removal of {@code [start, end)}. */
    public static Edit remove(int start, int end) {
        return new Edit(start, end, builder -> { });
    }
}
