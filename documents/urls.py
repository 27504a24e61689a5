"""Owner pages, mounted at /documents/."""

from __future__ import annotations

from django.urls import path

from documents import views

app_name = "documents"
urlpatterns = [
    path("", views.document_list, name="list"),
    path("upload/", views.document_upload, name="upload"),
    path("<int:pk>/", views.document_detail, name="detail"),
    path("<int:pk>/status/", views.document_status, name="status"),
    path("<int:pk>/versions/", views.document_replace, name="replace"),
    path("<int:pk>/reindex/", views.document_reindex_view, name="reindex"),
    path("<int:pk>/delete/", views.document_delete_view, name="delete"),
]
