"""The documents REST API (mounted at /api/v1/documents/) for document owners.

The same services and selectors as the owner pages: only users with the owner
role (``owners`` group or staff) get in (others 403, anonymous 401); a document
the user may not change is a 404, exactly like one that does not exist; a file
the ingest service refuses is a 400 with its message under ``file``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents.failures import DELETE_UNAVAILABLE, DenseIndexUnavailableError
from documents.forms import read_upload
from documents.models import Document
from documents.roles import is_owner
from documents.selectors import get_document_for_manager, manageable_documents
from documents.serializers import (
    DocumentDetailSerializer,
    DocumentSerializer,
    DocumentUploadInputSerializer,
    VersionUploadInputSerializer,
)
from documents.services import document_delete, document_ingest, document_reindex, version_ingest
from ragportal.api import Pagination
from ragportal.parsers import JSONParser

BAD_REQUEST = OpenApiResponse(
    OpenApiTypes.OBJECT, description="入力エラー（フィールドごとのメッセージ。ファイルの問題は file に）"
)
UNAUTHENTICATED = OpenApiResponse(OpenApiTypes.OBJECT, description="未認証")
FORBIDDEN = OpenApiResponse(OpenApiTypes.OBJECT, description="文書オーナーの権限がありません")
NOT_FOUND = OpenApiResponse(OpenApiTypes.OBJECT, description="存在しない、または変更できない文書")
UNAVAILABLE = OpenApiResponse(OpenApiTypes.OBJECT, description="検索用の索引に接続できません（何も削除されません）")


class IndexUnavailable(APIException):
    """503: the Chroma server cannot be reached, so nothing was deleted; the detail says so in the reader's language."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "search_unavailable"


class IsDocumentOwner(BasePermission):
    """The owner role: member of the ``owners`` group, or staff."""

    message = "文書オーナーの権限が必要です。"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return is_owner(request.user)


def _file_errors(exc: DjangoValidationError) -> ValidationError:
    """The ingest service's refusal as a 400 with its message under ``file``."""
    return ValidationError({"file": exc.messages})


def _detail(document: Document) -> dict:
    document = (
        Document.objects.select_related("owner", "live_version")
        .defer("live_version__text")  # only the live version's number is shown
        .prefetch_related("groups")
        .get(pk=document.pk)
    )
    return DocumentDetailSerializer(document).data


class DocumentsAPIView(APIView):
    permission_classes = [IsAuthenticated, IsDocumentOwner]


class DocumentCollectionAPI(DocumentsAPIView):
    """GET: the user's documents (staff: all). POST: upload a new document."""

    parser_classes = [MultiPartParser, FormParser]

    def _documents(self, request: Request) -> QuerySet[Document]:
        return (
            manageable_documents(request.user)
            .select_related("owner", "live_version")
            .defer("live_version__text")  # only the live version's number is shown
            .prefetch_related("groups")
            .order_by("filename")
        )

    @extend_schema(
        operation_id="documents_list",
        summary="自分の文書の一覧（スタッフはすべて）",
        description="limit/offset でページ送りする。",
        responses={200: DocumentSerializer(many=True), 401: UNAUTHENTICATED, 403: FORBIDDEN},
    )
    def get(self, request: Request) -> Response:
        paginator = Pagination()
        page = paginator.paginate_queryset(self._documents(request), request, view=self)
        return paginator.get_paginated_response(DocumentSerializer(page, many=True).data)

    @extend_schema(
        operation_id="documents_upload",
        summary="文書をアップロードする（索引の作成まで行う）",
        description="multipart/form-data。受け付けられないファイルは 400 で、理由は file に入る。",
        request={"multipart/form-data": DocumentUploadInputSerializer},
        responses={201: DocumentDetailSerializer, 400: BAD_REQUEST, 401: UNAUTHENTICATED, 403: FORBIDDEN},
    )
    def post(self, request: Request) -> Response:
        data = DocumentUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        uploaded = data.validated_data["file"]
        try:
            document = document_ingest(
                owner=request.user,
                filename=uploaded.name,
                data=read_upload(uploaded),
                title=data.validated_data["title"],
                groups=data.validated_data.get("groups"),
                folder=data.validated_data["folder"],
            )
        except DjangoValidationError as exc:
            raise _file_errors(exc) from None
        return Response(_detail(document), status=status.HTTP_201_CREATED)


class DocumentDetailAPI(DocumentsAPIView):
    """GET: one document with its versions. DELETE: remove it from both indexes and the database."""

    @extend_schema(
        operation_id="documents_retrieve",
        summary="文書の詳細（版の一覧つき）",
        description="自分の文書でなければ（スタッフを除き）404。",
        responses={200: DocumentDetailSerializer, 401: UNAUTHENTICATED, 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(_detail(get_document_for_manager(request.user, pk)))

    @extend_schema(
        operation_id="documents_delete",
        summary="文書を削除する（両方の索引からも消す）",
        description="削除は取り消せない。",
        responses={204: None, 401: UNAUTHENTICATED, 403: FORBIDDEN, 404: NOT_FOUND, 503: UNAVAILABLE},
    )
    def delete(self, request: Request, pk: int) -> Response:
        try:
            document_delete(document=get_document_for_manager(request.user, pk))
        except DenseIndexUnavailableError:
            raise IndexUnavailable(DELETE_UNAVAILABLE) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


class DocumentVersionsAPI(DocumentsAPIView):
    """POST: a new version of the document (byte-identical to the latest: no new version, 200)."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="documents_versions_create",
        summary="新しい版に差し替える（索引ができるまで今の版が使われる）",
        request={"multipart/form-data": VersionUploadInputSerializer},
        responses={
            201: DocumentDetailSerializer,
            200: OpenApiResponse(DocumentDetailSerializer, description="最新の版と同じ内容のため、版は作られなかった"),
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        document = get_document_for_manager(request.user, pk)
        data = VersionUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        uploaded = data.validated_data["file"]
        try:
            result = version_ingest(owner=request.user, filename=uploaded.name, data=read_upload(uploaded), document=document)
        except DjangoValidationError as exc:
            raise _file_errors(exc) from None
        code = status.HTTP_201_CREATED if result.changed else status.HTTP_200_OK
        return Response(_detail(result.document), status=code)


class DocumentReindexAPI(DocumentsAPIView):
    """POST: index the latest version again; the live version keeps answering meanwhile."""

    parser_classes = [JSONParser, FormParser, MultiPartParser]

    @extend_schema(
        operation_id="documents_reindex",
        summary="索引を作り直す",
        request=None,
        responses={
            200: DocumentDetailSerializer,
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        document = get_document_for_manager(request.user, pk)
        try:
            document_reindex(document=document)
        except DjangoValidationError as exc:
            raise ValidationError({"non_field_errors": exc.messages}) from None
        return Response(_detail(document))
