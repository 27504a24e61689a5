from __future__ import annotations

from django.urls import path

from qa import api

app_name = "qa_api"
urlpatterns = [
    path("ask", api.AskAPI.as_view(), name="ask"),
    path("search", api.SearchAPI.as_view(), name="search"),
    path("health", api.HealthAPI.as_view(), name="health"),
    path("health/deep", api.DeepHealthAPI.as_view(), name="health-deep"),
    path("answers", api.AnswerListAPI.as_view(), name="answers"),
    path("answers/<int:pk>", api.AnswerDetailAPI.as_view(), name="answer"),
    path("answers/<int:pk>/feedback", api.FeedbackAPI.as_view(), name="answer-feedback"),
    path("conversations", api.ConversationListAPI.as_view(), name="conversations"),
    path("conversations/<int:pk>", api.ConversationDetailAPI.as_view(), name="conversation"),
]
