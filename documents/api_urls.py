"""Documents API, mounted at /api/v1/documents/."""

from __future__ import annotations

from django.urls import path

from documents import api

app_name = "documents_api"
urlpatterns = [
    path("", api.DocumentCollectionAPI.as_view(), name="collection"),
    path("<int:pk>/", api.DocumentDetailAPI.as_view(), name="detail"),
    path("<int:pk>/versions/", api.DocumentVersionsAPI.as_view(), name="versions"),
    path("<int:pk>/reindex/", api.DocumentReindexAPI.as_view(), name="reindex"),
]
