package dev.pacer.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The schema of a status condition, for {@code kubectl explain} only: the fields of Kubernetes' {@code metav1.Condition}
 * (fabric8's {@code Condition}, which the statuses hold) with their meaning.
 */
final class ConditionSchema {
    @JsonPropertyDescription("The condition's kind, one of those listed under conditions.")
    public String type;
    @JsonPropertyDescription("True, False or Unknown.")
    public String status;
    @JsonPropertyDescription("Why, in one CamelCase word (e.g. Timeout, PodRejected, InvalidSpec, ReconcileError): for tools and alerts.")
    public String reason;
    @JsonPropertyDescription("Why, in words: names the field, pod or figure at fault and, where there is one, the fix.")
    public String message;
    @JsonPropertyDescription("When the status last changed, RFC 3339.")
    public String lastTransitionTime;
    @JsonPropertyDescription("The spec generation the condition was set for.")
    public Long observedGeneration;

    private ConditionSchema() {
    }
}
