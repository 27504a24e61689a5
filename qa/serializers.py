"""Input and output serializers of the Q&A API.

Inputs validate shape only; the rules (question length, document visibility,
rating/reason) live in ``qa.services`` and come back as field errors. Outputs
describe the payloads built by ``qa.presenters`` so the OpenAPI schema is
exact. ``AnswerPayloadSerializer`` builds its data from ``answer_payload`` (as
``manage.py ask --json`` does) and emits it through its declared fields, so a
field missing from either side fails (``tests/qa/test_api.py``), never drifts.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qa.models import Answer, Conversation, Feedback
from qa.presenters import answer_payload
from qa.results import AnswerResult

# --- inputs -----------------------------------------------------------------


class AskInputSerializer(serializers.Serializer):
    text = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text="質問（2000文字以内）")
    conversation = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    document = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="この文書に限定して検索する（聞き返しへの回答）"
    )


class SearchInputSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    document = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    k = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=50)


class FeedbackInputSerializer(serializers.Serializer):
    rating = serializers.ChoiceField(choices=Feedback.Rating.choices)
    reason = serializers.ChoiceField(choices=Feedback.Reason.choices, required=False, allow_blank=True, default="")
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)


# --- outputs ----------------------------------------------------------------


class ClarificationOptionSerializer(serializers.Serializer):
    document_id = serializers.IntegerField()
    filename = serializers.CharField()
    title = serializers.CharField()
    section = serializers.CharField()
    score = serializers.FloatField()


class ClarificationSerializer(serializers.Serializer):
    message = serializers.CharField()
    options = ClarificationOptionSerializer(many=True)


class SectionSerializer(serializers.Serializer):
    filename = serializers.CharField()
    section_title = serializers.CharField()
    similarity_score = serializers.FloatField()


class CitationPresenceSerializer(serializers.Serializer):
    has_citation = serializers.BooleanField()
    citation_quality = serializers.ChoiceField(choices=["strong", "weak", "none"])
    mentioned_sources = serializers.ListField(child=serializers.CharField())
    expected_sources = serializers.ListField(child=serializers.CharField())
    mentioned_files = serializers.ListField(child=serializers.CharField())
    unexpected_sources = serializers.ListField(child=serializers.CharField())
    warning = serializers.CharField(allow_null=True)


class VerificationSerializer(serializers.Serializer):
    citation_presence = CitationPresenceSerializer(allow_null=True)
    flags = serializers.ListField(child=serializers.CharField())
    warnings = serializers.ListField(child=serializers.CharField())
    grounded_ratio = serializers.FloatField(allow_null=True)
    quote_checks = serializers.ListField(child=serializers.DictField())
    sentences = serializers.ListField(child=serializers.DictField())
    replaced_text = serializers.BooleanField(help_text="根拠不足のため回答文が定型文に置き換えられた")


class CitationOutSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    filename = serializers.CharField()
    section = serializers.CharField()
    cited_text = serializers.CharField()
    start = serializers.IntegerField(allow_null=True)
    end = serializers.IntegerField(allow_null=True)
    quote_verified = serializers.BooleanField()


class AnswerPayloadSerializer(serializers.Serializer):
    """One answer as the API returns it (see ``qa.presenters.answer_payload``)."""

    id = serializers.IntegerField()
    conversation = serializers.IntegerField()
    question = serializers.CharField()
    search_query = serializers.CharField()
    expanded_query = serializers.CharField()
    added_keywords = serializers.ListField(child=serializers.CharField())
    response_type = serializers.ChoiceField(choices=Answer.ResponseType.choices)
    answer = serializers.CharField(
        help_text="回答文。withheld のときは「閲覧権限が変更された文書を含むため表示できません」"
    )
    withheld = serializers.BooleanField(
        help_text=(
            "回答の根拠となった文書の一部を、いまは閲覧できない（後から閲覧グループが限定された）。"
            "回答文・引用・出典・検証の詳細は返さず、answer はその旨のメッセージになる"
        )
    )
    clarification = ClarificationSerializer(allow_null=True)
    sources = serializers.ListField(child=serializers.CharField())
    sections = SectionSerializer(many=True)
    confidence = serializers.ChoiceField(choices=Answer.Confidence.choices, allow_null=True)
    stale = serializers.BooleanField(
        help_text="A quoted document version is no longer live (updated or deleted). Always false when withheld."
    )
    verification = VerificationSerializer()
    version = serializers.CharField()
    citations = CitationOutSerializer(many=True)
    flags = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()

    def to_representation(self, instance: AnswerResult | Answer) -> dict[str, Any]:
        """``answer_payload(instance)`` through the declared fields: one it lacks raises, an extra key is dropped."""
        return super().to_representation(answer_payload(instance))


class SearchHitSerializer(serializers.Serializer):
    chunk_id = serializers.IntegerField()
    document_id = serializers.IntegerField()
    filename = serializers.CharField()
    title = serializers.CharField()
    section = serializers.CharField()
    score = serializers.FloatField()
    similarity = serializers.FloatField()
    text = serializers.CharField()


class SearchOutputSerializer(serializers.Serializer):
    query = serializers.CharField()
    expanded_query = serializers.CharField()
    added_keywords = serializers.ListField(child=serializers.CharField())
    hits = SearchHitSerializer(many=True)
    timings = serializers.DictField(child=serializers.FloatField())


class FeedbackOutputSerializer(serializers.ModelSerializer):
    answer = serializers.IntegerField(source="answer_id")

    class Meta:
        model = Feedback
        fields = ["answer", "rating", "reason", "comment", "updated_at"]


class HealthCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    latency_ms = serializers.FloatField()
    error = serializers.CharField(required=False)


class HealthChecksSerializer(serializers.Serializer):
    database = HealthCheckSerializer()
    chroma = HealthCheckSerializer()
    embedding = HealthCheckSerializer()
    index = HealthCheckSerializer(help_text="the dense index holds as many vectors as there are live chunks")


class HealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "degraded", "error"])
    checks = HealthChecksSerializer()


class IndexDriftSerializer(serializers.Serializer):
    filename = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField())


class IndexReportSerializer(serializers.Serializer):
    live_chunks = serializers.IntegerField()
    dense_entries = serializers.IntegerField()
    keyword_entries = serializers.IntegerField()
    documents = IndexDriftSerializer(many=True)


class DeepHealthSerializer(HealthSerializer):
    index = IndexReportSerializer()


class ConversationSerializer(serializers.ModelSerializer):
    answer_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Conversation
        fields = ["id", "title", "created_at", "updated_at", "answer_count"]


class ConversationDetailSerializer(ConversationSerializer):
    answers = serializers.SerializerMethodField()

    class Meta(ConversationSerializer.Meta):
        fields = [*ConversationSerializer.Meta.fields, "answers"]

    @extend_schema_field(AnswerPayloadSerializer(many=True))
    def get_answers(self, conversation: Conversation) -> list[dict[str, Any]]:
        return list(AnswerPayloadSerializer(self.context["answers"], many=True).data)
