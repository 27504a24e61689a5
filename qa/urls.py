from __future__ import annotations

from django.urls import path

from qa import views

app_name = "qa"
urlpatterns = [
    path("", views.chat, name="chat"),
    path("c/<int:pk>/", views.conversation_detail, name="conversation"),
    path("ask/", views.ask, name="ask"),
    path("answers/<int:pk>/feedback/", views.feedback, name="feedback"),
    path("api-token/", views.api_token, name="api_token"),
]
