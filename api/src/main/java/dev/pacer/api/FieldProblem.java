package dev.pacer.api;

/** One thing wrong with a spec: the field's path (e.g. {@code spec.clients.rate}) and what to do about it. */
public record FieldProblem(String field, String message) {
    @Override
    public String toString() {
        return field + ": " + message;
    }
}
