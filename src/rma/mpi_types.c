/* Shoal's data types and operations as MPI's (atomics through MPI, the collectives' native
 * algorithm). MPI_DATATYPE_NULL / MPI_OP_NULL for a value that has none. */
#include <limits.h>

#include "rma.h"

MPI_Datatype shoal__mpi_datatype(shoal_type_t type) {
    switch (type) {
    case SHOAL_TYPE_CHAR:
        return CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR; /* MPI_CHAR cannot reduce */
    case SHOAL_TYPE_SCHAR:
        return MPI_SIGNED_CHAR;
    case SHOAL_TYPE_SHORT:
        return MPI_SHORT;
    case SHOAL_TYPE_INT:
        return MPI_INT;
    case SHOAL_TYPE_LONG:
        return MPI_LONG;
    case SHOAL_TYPE_LONGLONG:
        return MPI_LONG_LONG;
    case SHOAL_TYPE_UCHAR:
        return MPI_UNSIGNED_CHAR;
    case SHOAL_TYPE_USHORT:
        return MPI_UNSIGNED_SHORT;
    case SHOAL_TYPE_UINT:
        return MPI_UNSIGNED;
    case SHOAL_TYPE_ULONG:
        return MPI_UNSIGNED_LONG;
    case SHOAL_TYPE_ULONGLONG:
        return MPI_UNSIGNED_LONG_LONG;
    case SHOAL_TYPE_INT8:
        return MPI_INT8_T;
    case SHOAL_TYPE_INT16:
        return MPI_INT16_T;
    case SHOAL_TYPE_INT32:
        return MPI_INT32_T;
    case SHOAL_TYPE_INT64:
        return MPI_INT64_T;
    case SHOAL_TYPE_UINT8:
        return MPI_UINT8_T;
    case SHOAL_TYPE_UINT16:
        return MPI_UINT16_T;
    case SHOAL_TYPE_UINT32:
        return MPI_UINT32_T;
    case SHOAL_TYPE_UINT64:
        return MPI_UINT64_T;
    case SHOAL_TYPE_SIZE:
        return sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T;
    case SHOAL_TYPE_PTRDIFF:
        return sizeof(ptrdiff_t) == 8 ? MPI_INT64_T : MPI_INT32_T;
    case SHOAL_TYPE_FLOAT:
        return MPI_FLOAT;
    case SHOAL_TYPE_DOUBLE:
        return MPI_DOUBLE;
    case SHOAL_TYPE_LONGDOUBLE:
        return MPI_LONG_DOUBLE;
    default:
        return MPI_DATATYPE_NULL;
    }
}

MPI_Op shoal__mpi_op(shoal_red_op_t op) {
    switch (op) {
    case SHOAL_RED_SUM:
        return MPI_SUM;
    case SHOAL_RED_PROD:
        return MPI_PROD;
    case SHOAL_RED_MIN:
        return MPI_MIN;
    case SHOAL_RED_MAX:
        return MPI_MAX;
    case SHOAL_RED_AND:
        return MPI_BAND;
    case SHOAL_RED_OR:
        return MPI_BOR;
    case SHOAL_RED_XOR:
        return MPI_BXOR;
    default:
        return MPI_OP_NULL;
    }
}
